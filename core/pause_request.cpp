#include "core/pause_request.hpp"

#include <csignal>
#include <initializer_list>

namespace loci {

namespace {

volatile std::sig_atomic_t requested = 0;

extern "C" void remember_pause(int) { requested = 1; }

sigset_t pause_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (const int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGCHLD}) sigaddset(&set, sig);
  return set;
}

}  // namespace

void hold_pause_signals() {
  const sigset_t held = pause_signals();
  sigprocmask(SIG_BLOCK, &held, nullptr);
}

void catch_pause_requests() {
  struct sigaction sa {};
  sa.sa_handler = remember_pause;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &sa, nullptr);
  // A sweep starts each run with the signals it handles held, so that one sent before the run could take it waits
  // (apps/sweep/sweep.cpp, launch): from here the run takes them, SIGUSR1 into the handler above, a stop by its
  // default.
  const sigset_t held = pause_signals();
  sigprocmask(SIG_UNBLOCK, &held, nullptr);
}

bool pause_requested_early() { return requested != 0; }

}  // namespace loci
