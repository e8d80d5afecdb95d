#include "supervisor/known_labs.hpp"

#include <sstream>
#include <stdexcept>

namespace course {

const std::vector<lab_entry>& known_labs() {
    // labs.json, as CMake writes it out when it configures (cmake/course_manifest.cmake).
    static const std::vector<lab_entry> labs = {
#include "manifest/known_labs_table.inc"
    };
    return labs;
}

namespace {

const lab_entry* find_lab(const std::string& name) {
    for (const auto& l : known_labs())
        if (name == l.name) return &l;
    return nullptr;
}

}  // namespace

bool is_known_lab(const std::string& name) { return find_lab(name) != nullptr; }

const lab_entry& known_lab(const std::string& name) {
    if (const lab_entry* l = find_lab(name)) return *l;
    throw std::invalid_argument("unknown lab '" + name + "'; the labs are " + known_labs_text());
}

std::vector<std::string> part_ids(const lab_entry& lab) {
    std::vector<std::string> ids;
    std::istringstream words(lab.parts);
    for (std::string id; words >> id;) ids.push_back(id);
    return ids;
}

std::string known_labs_text() {
    std::string out;
    for (const auto& l : known_labs()) out += (out.empty() ? "" : ", ") + std::string(l.name);
    return out;
}

}  // namespace course
