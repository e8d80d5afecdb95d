// Attack: include course code the lab file may not reach, through the course's own
// include folder (no ".." needed): here lab 5's baseline kernels. Expected: refused
// before compiling.
#include "baselines/lab5_unpadded.cu"
