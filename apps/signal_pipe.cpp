#include "apps/signal_pipe.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <iterator>

#include "core/error.hpp"

namespace loci::apps {
namespace {

constexpr int kSweepSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGUSR1};
int signal_pipe[2] = {-1, -1};

extern "C" void note_signal(int sig) {
  const int saved = errno;
  const unsigned char byte = static_cast<unsigned char>(sig);
  if (write(signal_pipe[1], &byte, 1) < 0) {
  }  // a full pipe already holds a wake-up
  errno = saved;
}

}  // namespace

SignalPipe::SignalPipe() {
  static_assert(std::size(kSweepSignals) == std::size(decltype(before_){}), "one saved disposition per signal");
  if (pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) throw UserError("cannot start a sweep (pipe failed)");
  struct sigaction on {};
  on.sa_handler = note_signal;
  on.sa_flags = SA_RESTART;
  sigemptyset(&on.sa_mask);
  for (std::size_t i = 0; i < std::size(kSweepSignals); ++i) sigaction(kSweepSignals[i], &on, &before_[i]);
}

SignalPipe::~SignalPipe() {
  for (std::size_t i = 0; i < std::size(kSweepSignals); ++i) sigaction(kSweepSignals[i], &before_[i], nullptr);
  close(signal_pipe[0]);
  close(signal_pipe[1]);
  signal_pipe[0] = signal_pipe[1] = -1;
}

std::vector<int> SignalPipe::take() const {
  pollfd fd{signal_pipe[0], POLLIN, 0};
  std::vector<int> taken;
  for (;;) {
    unsigned char byte = 0;
    while (read(signal_pipe[0], &byte, 1) == 1) taken.push_back(byte);
    if (!taken.empty()) return taken;
    poll(&fd, 1, -1);
  }
}

}  // namespace loci::apps
