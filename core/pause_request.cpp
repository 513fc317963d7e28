#include "core/pause_request.hpp"

#include <csignal>

namespace loci {

namespace {

volatile std::sig_atomic_t requested = 0;

extern "C" void remember_pause(int) { requested = 1; }

}  // namespace

void catch_pause_requests() {
  struct sigaction sa {};
  sa.sa_handler = remember_pause;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &sa, nullptr);
}

bool pause_requested_early() { return requested != 0; }

}  // namespace loci
