// loci's one way to multiversion a hot loop, and its one FMA policy; include it first in the translation units that
// hold such loops (sim's dynamics and volumes, models/kernels/).
//
// LOCI_CLONES compiles a function for x86-64-v4 (AVX-512), x86-64-v3 (AVX2 and FMA) and the x86-64 baseline and
// picks one at load time, so one binary uses the widest vectors a machine has.
// The FMA policy: a * b + c is never contracted into a fused multiply-add behind the code's back (switched off
// below, for the whole translation unit); a fused multiply-add happens only where the code writes std::fma or an
// FMA intrinsic, which rounds once on every target (one instruction in the v3 and v4 clones, glibc's exact software
// fma in the baseline one). So an element-wise loop (sim's: lanes never mix) gives the same bits in every clone; a
// loop that reduces across a vector (the kernels' row sums) may differ by clone in its last bits, by the order of
// its sums, never by contraction. The baseline is slow where the code writes std::fma (about 30x for the rate
// model: 10 M node-steps/s, measured) and serves only processors without FMA (before 2013, and some later low-end
// Pentium, Celeron and Atom parts); the fused operations make the others ~19% faster.
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

// Defining it empty (-DLOCI_CLONES=) builds the plain target only, e.g. to check that every clone gives the
// same bits as the baseline.
#ifndef LOCI_CLONES
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define LOCI_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define LOCI_CLONES
#endif
#endif
