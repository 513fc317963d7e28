// No positional information: the control condition. Every hook keeps its do-nothing default.

#include "models/pe/positional_encoding.hpp"

namespace loci::models {
namespace {

class NonePEImpl : public PositionalEncodingImpl {
 public:
  using PositionalEncodingImpl::PositionalEncodingImpl;
};

}  // namespace

LOCI_REGISTER(PEInfo, pe_info<NonePEImpl>("none"));

}  // namespace loci::models
