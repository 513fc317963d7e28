#include "pause_signal.hpp"

#include <csignal>

#include "core/pause_request.hpp"

namespace loci::torch_trainer {

namespace {

volatile std::sig_atomic_t pause_asked = 0;
struct sigaction before {};

void on_pause(int) { pause_asked = 1; }

}  // namespace

PauseSignal::PauseSignal() {
  pause_asked = 0;
  struct sigaction sa {};
  sa.sa_handler = on_pause;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &sa, &before);
  // One that came while the process started (plugins loading, data opening) still counts; read after the handler is
  // in place, so that none arriving in between is lost.
  if (pause_requested_early()) pause_asked = 1;
}

PauseSignal::~PauseSignal() { sigaction(SIGUSR1, &before, nullptr); }

bool PauseSignal::requested() { return pause_asked != 0; }

}  // namespace loci::torch_trainer
