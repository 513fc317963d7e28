# loci_compile_in_batches(TARGET): when LOCI_UNITY_BUILD is on, TARGET compiles its sources in batches of 8 (CMake's
# unity build). For targets whose sources include LibTorch: each such translation unit spends 10-20 s on LibTorch's
# headers even from the precompiled copy (instantiating what they define, not parsing them), and a batch pays that
# once. Sources with compile options of their own (models/kernels/, the trainer's data_parallel.cpp) stay alone, as
# CMake keeps such files out of a batch.
function(loci_compile_in_batches target)
  if(LOCI_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE BATCH UNITY_BUILD_BATCH_SIZE 8)
  endif()
endfunction()
