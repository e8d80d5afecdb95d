#pragma once
// Every lab file defines its kernels inside `namespace LAB_IMPL`. The course build
// compiles each file once per role and names the namespace for that role
// (lab3_student, lab3_reference, ...), so the student's kernels, the reference and the
// naive baseline link into one grader without clashing. Editors that open a lab file on
// its own see this default.
#ifndef LAB_IMPL
#define LAB_IMPL lab_student
#endif
