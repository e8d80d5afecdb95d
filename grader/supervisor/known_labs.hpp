#pragma once
#include <string>
#include <vector>

namespace course {

// The labs of labs.json, in course order: short name (what `./grade` takes), folder
// under labs/, and part ids separated by spaces ("A B").
struct lab_entry {
    const char* name;
    const char* folder;
    const char* parts;
};
const std::vector<lab_entry>& known_labs();
bool is_known_lab(const std::string& name);
const lab_entry& known_lab(const std::string& name);  // throws std::invalid_argument for an unknown lab
std::string known_labs_text();  // "lab1, lab2, lab3, lab4, lab5"
std::vector<std::string> part_ids(const lab_entry& lab);  // {"A", "B"}

}  // namespace course
