#pragma once
// Fixed sinusoid tables and the positions helpers shared by the sinusoidal PEs, the rotary PEs and the initialisers.

#include <torch/types.h>

namespace loci::models {

// [T, width]: for pair k, column 2k is sin(c * base^(-2k/width)) and column 2k+1 the cosine (the usual interleaving).
// `coordinate` is [T]; an odd width leaves its last column at zero.
torch::Tensor sinusoid_table(const torch::Tensor& coordinate, int64_t width, double base);

// [T, width]: the width split evenly over the columns of `positions` [T, dims], each axis getting the largest even
// share 2*floor(width / (2*dims)); columns left over stay zero.
torch::Tensor sinusoid_table_nd(const torch::Tensor& positions, int64_t width, double base);

// Rotation angles [T, pairs] for rotary encodings: axis a of `positions` owns pairs [a*m, (a+1)*m) with
// m = floor(pairs / dims), at frequencies base^(-k/m); pairs left over get angle 0 (no rotation). Float64, so that
// the caller takes sine and cosine before rounding.
torch::Tensor rotary_angles(const torch::Tensor& positions, int64_t pairs, double base);

// [T, 1] holding 0..T-1: the positions of a plain sequence.
torch::Tensor index_positions(int64_t tokens);

// [rows*cols, 2] holding (row, column) of each cell in row-major order: the positions of a grid of tokens.
torch::Tensor grid_positions(int64_t rows, int64_t cols);

}  // namespace loci::models
