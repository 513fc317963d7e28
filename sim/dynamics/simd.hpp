// For the translation units that hold the hot loops (include it first).
//
// LOCI_SIMD_CLONES compiles a function for x86-64-v4 (AVX-512), x86-64-v3 (AVX2 and FMA) and the x86-64 baseline
// and picks one at load time, so one binary uses the widest vectors a machine has. The results stay bit-identical
// across the clones because (1) every loop is element-wise (lanes never mix, nothing is reduced across a vector),
// and (2) a * b + c is never contracted into a fused multiply-add behind the code's back (switched off below):
// a fused multiply-add happens only where the code writes std::fma, which rounds once on every target: one
// instruction in the v3 and v4 clones, glibc's exact software fma in the baseline one. The baseline is therefore
// slow (about 30x: 10 M node-steps/s for the rate model, measured) and serves only processors without FMA (before
// 2013, and some later low-end Pentium, Celeron and Atom parts); the fused operations make the others ~19% faster.
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

// Defining it empty (-DLOCI_SIMD_CLONES=) builds the plain target only, e.g. to check that every clone gives the
// same bits as the baseline.
#ifndef LOCI_SIMD_CLONES
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define LOCI_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define LOCI_SIMD_CLONES
#endif
#endif
