// Attack: include the reference answer through a relative path. Expected: refused before
// compiling, without echoing the included file.
#include "../../solutions/lab3_unrolled/kernels.cu"
