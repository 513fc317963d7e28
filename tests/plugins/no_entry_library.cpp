// A shared library that is not a loci plugin at all.
extern "C" __attribute__((visibility("default"))) int some_other_function(void) { return 42; }
