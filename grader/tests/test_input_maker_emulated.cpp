// unit.input_maker: the GPU worker's input kernel and its test, run on the CPU emulator
// (the emulator compiles .cu sources as C++, as it does a lab's).
#include "test_input_maker.cu"
#include "worker/input_maker.cu"
