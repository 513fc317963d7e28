// For the translation units that hold the hot loops (include it first).
//
// LOCI_SIMD_CLONES compiles a function for AVX-512, AVX2 and the x86-64 baseline and picks one at load time, so
// one binary uses the widest vectors a machine has. The results stay bit-identical across the clones because
// (1) every loop is element-wise (lanes never mix, nothing is reduced across a vector), and (2) contraction of
// a * b + c into a fused multiply-add, which GCC does wherever the target has FMA (AVX-512 does), is switched off
// below: with it, an AVX-512 machine would round differently from a baseline one.
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

// Defining it empty (-DLOCI_SIMD_CLONES=) builds the plain target only, e.g. to check that every clone gives the
// same bits as the baseline.
#ifndef LOCI_SIMD_CLONES
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define LOCI_SIMD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define LOCI_SIMD_CLONES
#endif
#endif
