#pragma once
// What every rule that refuses a file reports (the source scan, the preprocessed scan and
// the object check), in a header of its own so that each of them can include it.
#include <string>

namespace course::rules {

// One reason to refuse a file. `line` is a line of the student's file, 0 when there is none.
struct finding {
    int line = 0;
    std::string message;
};

}  // namespace course::rules
