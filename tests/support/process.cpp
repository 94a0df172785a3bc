#include "support/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "support/temp_dir.hpp"

namespace fovea::test {

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                           const std::filesystem::path& stdout_file, const std::filesystem::path& stderr_file,
                           const std::vector<int>& ignored) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    // Child: only async-signal-safe calls until exec.
    const int in = open("/dev/null", O_RDONLY);
    const int out = open(stdout_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 ||
        chdir(cwd.c_str()) != 0)
      _exit(127);
    for (const int s : ignored) signal(s, SIG_IGN);
    execv(args[0], args.data());
    _exit(127);
  }
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !reaped_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

void ChildProcess::send_signal(int signal) {
  if (!reaped_) kill(pid_, signal);
}

int ChildProcess::wait() {
  if (!reaped_) {
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0) {
    }
    reaped_ = true;
    status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    signal_ = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  }
  return status_;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool is_png(const std::filesystem::path& path) {
  const std::string bytes = read_file(path);
  return bytes.size() > 1000 && bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0;
}

bool python_has_matplotlib() {
  return run_process({"/bin/sh", "-c",
                      "if [ -n \"$FOVEA_PYTHON\" ]; then \"$FOVEA_PYTHON\" -c 'import matplotlib'; else "
                      "python3 -c 'import matplotlib' || /usr/bin/python3 -c 'import matplotlib'; fi 2>/dev/null"},
                     std::filesystem::temp_directory_path())
             .status == 0;
}

ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd) {
  TempDir output;
  ChildProcess child(argv, cwd, output / "stdout", output / "stderr");
  ProcessResult result;
  result.status = child.wait();
  result.out = read_file(output / "stdout");
  result.err = read_file(output / "stderr");
  return result;
}

}  // namespace fovea::test
