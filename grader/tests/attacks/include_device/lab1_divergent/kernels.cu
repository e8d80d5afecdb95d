// Attack: include a device file that never ends, to make the compiler eat all memory.
// Expected: refused before the compiler reads it.
#include "/dev/zero"
