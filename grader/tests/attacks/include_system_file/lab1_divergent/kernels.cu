// Attack: include a system file so that the compiler's error messages, which quote it,
// land in the build log that the gradebook and Gradescope show. Expected: refused before
// compiling, and not a byte of the file in any log.
#include "/etc/passwd"
