#include "rules/rules_mangled.hpp"

#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "rules/rules_text.hpp"

namespace course::rules {

using detail::starts_with;

namespace {

// A tiny reader of the Itanium mangling's prefixes: enough to find the first component
// of an entity's scope, never to demangle.
class mangled_reader {
public:
    explicit mangled_reader(const std::string& s) : s_(s) {}

    // The scope of the <encoding> or special name at the current position.
    std::string special_or_encoding(std::string* global_name) {
        if (eat("TV") || eat("TT") || eat("TI") || eat("TS") || eat("TC")) return name(global_name);
        if (eat("Th")) {
            number();
            eat("_");
            return name(global_name);
        }
        if (eat("Tv")) {
            number();
            eat("_");
            number();
            eat("_");
            return name(global_name);
        }
        if (eat("Tc")) {
            for (int k = 0; k < 2; ++k) call_offset();
            return name(global_name);
        }
        if (eat("TH") || eat("TW") || eat("GV") || eat("GR") || eat("GTt") || eat("GTn") || eat("GA")) return name(global_name);
        if (peek() == 'T' || peek() == 'G') return "?";
        return name(global_name);
    }

private:
    char peek() const { return p_ < s_.size() ? s_[p_] : '\0'; }
    bool eat(const char* t) {
        const std::size_t n = std::strlen(t);
        if (s_.compare(p_, n, t) != 0) return false;
        p_ += n;
        return true;
    }
    void number() {
        eat("n");
        while (std::isdigit(static_cast<unsigned char>(peek()))) ++p_;
    }
    void call_offset() {
        if (eat("h")) {
            number();
            eat("_");
        } else if (eat("v")) {
            number();
            eat("_");
            number();
            eat("_");
        }
    }
    // <source-name>: a length and an identifier.
    std::string source_name() {
        std::size_t len = 0;
        const std::size_t start = p_;
        while (std::isdigit(static_cast<unsigned char>(peek()))) len = len * 10 + static_cast<std::size_t>(s_[p_++] - '0');
        if (p_ == start || p_ + len > s_.size()) return "";
        const std::string id = s_.substr(p_, len);
        p_ += len;
        return id;
    }
    // The first component of a <prefix>, or "?".
    std::string first_component() {
        if (eat("St")) return "std";
        if (peek() == 'S' && p_ + 1 < s_.size() && std::strchr("abisod", s_[p_ + 1]) != nullptr) return "std";
        eat("L");
        if (std::isdigit(static_cast<unsigned char>(peek()))) {
            const std::string id = source_name();
            return id.empty() ? "?" : id;
        }
        return "?";
    }
    std::string name(std::string* global_name) {
        if (eat("N")) {
            while (peek() == 'r' || peek() == 'V' || peek() == 'K') ++p_;
            if (peek() == 'R' || peek() == 'O') ++p_;
            return first_component();
        }
        if (eat("Z")) return special_or_encoding(global_name);  // a local entity: its function's scope
        if (eat("St")) return "std";
        if (peek() == 'S' && p_ + 1 < s_.size() && std::strchr("abisod", s_[p_ + 1]) != nullptr) return "std";
        eat("L");
        if (std::isdigit(static_cast<unsigned char>(peek()))) {
            const std::string id = source_name();
            if (id.empty()) return "?";
            if (global_name != nullptr) *global_name = id;
            return "";
        }
        if (std::islower(static_cast<unsigned char>(peek()))) return "";  // an operator: global
        return "?";
    }

    const std::string& s_;
    std::size_t p_ = 2;
};

}  // namespace

std::string demangle(const std::string& mangled) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && out ? std::string(out.get()) : mangled;
}

std::string symbol_scope(const std::string& mangled, std::string* global_name) {
    if (global_name != nullptr) global_name->clear();
    if (!starts_with(mangled, "_Z")) {
        if (global_name != nullptr) *global_name = mangled;
        return "";
    }
    return mangled_reader(mangled).special_or_encoding(global_name);
}

}  // namespace course::rules
