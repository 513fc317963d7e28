// How a result was made, kept apart from what it is: loci's version and source commit, the command line, the
// host and its CPU, the BLAS kernel, and the time. Written beside a dataset or a run (provenance.json), never into
// the shards, index.json or identity.json, so that identical configs still give identical bytes.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace loci {

// Now, in UTC, as 2026-12-01T10:23:45Z.
std::string utc_now();

// The environment variable through which a sweep hands its own command to the runs it starts.
inline constexpr const char* kSweepCommandVariable = "LOCI_SWEEP_COMMAND";

// This process's command line as a shell would read it back (each word quoted where it must be).
std::string this_command();

// loci_version, source_commit, command (this process's command line, pasteable), sweep_command (the command of the
// sweep that started this process, when one did), host, cpu (its model name, vendor, family, model and stepping,
// and the microarchitecture where known); with `blas`, the BLAS kernel the
// process runs on and why (training; generation uses no BLAS).
nlohmann::ordered_json provenance(bool blas);

}  // namespace loci
