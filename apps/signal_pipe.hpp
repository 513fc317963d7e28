// What a sweep waits on: its runs ending (SIGCHLD), the signals that stop it (SIGTERM, SIGINT, SIGHUP) and the
// one that pauses it (SIGUSR1, a scheduler's warning before its time limit), each
// turned by a handler into a byte on a pipe. A handler, not a blocked mask: whichever thread the kernel picks takes
// the signal (`loci run` keeps OpenMP threads from generation, which a mask set at the sweep would not cover), and a
// signal that comes between checking and waiting stays in the pipe.
#pragma once

#include <signal.h>

#include <vector>

#include <boost/core/noncopyable.hpp>

namespace loci::apps {

class SignalPipe : boost::noncopyable {
 public:
  // Installs the handler for the object's lifetime; the dispositions before are put back after.
  SignalPipe();
  ~SignalPipe();

  // Every signal taken so far, in the order taken; waits for one when there is none yet.
  std::vector<int> take() const;

 private:
  struct sigaction before_[5]{};
};

}  // namespace loci::apps
