#include "worker/part.hpp"

namespace course {

const char* to_string(part_kind k) {
    switch (k) {
    case part_kind::reduction: return "reduction";
    case part_kind::record_sums: return "record_sums";
    case part_kind::transpose: return "transpose";
    }
    return "unknown";
}

}  // namespace course
