#include "worker/part.hpp"

namespace course {

const char* to_string(part_kind k) {
    switch (k) {
    case part_kind::reduction: return "reduction";
    case part_kind::transpose: return "transpose";
    case part_kind::aos_to_soa: return "aos_to_soa";
    }
    return "unknown";
}

}  // namespace course
