#include "support/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "support/temp_dir.hpp"

namespace fovea::test {

namespace {

/// Copies the two pipes to their files as the output comes, until both are at their end.
void copy_output(int stdout_pipe, int stderr_pipe, std::filesystem::path stdout_file, std::filesystem::path stderr_file) {
  std::ofstream out(stdout_file, std::ios::binary);
  std::ofstream err(stderr_file, std::ios::binary);
  pollfd pipes[2] = {{stdout_pipe, POLLIN, 0}, {stderr_pipe, POLLIN, 0}};
  std::ofstream* files[2] = {&out, &err};
  char buffer[4096];
  int open_pipes = 2;
  while (open_pipes > 0) {
    if (poll(pipes, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int p = 0; p < 2; ++p) {
      if (pipes[p].fd < 0 || pipes[p].revents == 0) continue;
      const ssize_t n = read(pipes[p].fd, buffer, sizeof buffer);
      if (n > 0) {
        files[p]->write(buffer, n).flush();
      } else if (n == 0 || errno != EINTR) {
        close(pipes[p].fd);
        pipes[p].fd = -1;
        --open_pipes;
      }
    }
  }
}

}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                           const std::filesystem::path& stdout_file, const std::filesystem::path& stderr_file,
                           const std::vector<int>& ignored)
    : ChildProcess(argv, cwd, stdout_file, stderr_file, ChildSetup{ignored, std::nullopt, false}) {}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                           const std::filesystem::path& stdout_file, const std::filesystem::path& stderr_file,
                           const ChildSetup& setup) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const bool through_pipes = setup.output_through_pipes || setup.file_size_limit_bytes.has_value();
  int stdout_pipe[2] = {-1, -1};
  int stderr_pipe[2] = {-1, -1};
  if (through_pipes && (pipe2(stdout_pipe, O_CLOEXEC) != 0 || pipe2(stderr_pipe, O_CLOEXEC) != 0))
    throw std::runtime_error("pipe failed");
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    // Child: only async-signal-safe calls until exec.
    const int in = open("/dev/null", O_RDONLY);
    const int out = through_pipes ? stdout_pipe[1] : open(stdout_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = through_pipes ? stderr_pipe[1] : open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 ||
        chdir(cwd.c_str()) != 0)
      _exit(127);
    for (const int s : setup.ignored) signal(s, SIG_IGN);
    if (setup.file_size_limit_bytes) {
      const rlimit limit{static_cast<rlim_t>(*setup.file_size_limit_bytes), static_cast<rlim_t>(*setup.file_size_limit_bytes)};
      if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(127);
    }
    execv(args[0], args.data());
    _exit(127);
  }
  if (through_pipes) {
    close(stdout_pipe[1]);
    close(stderr_pipe[1]);
    output_copier_ = std::thread(copy_output, stdout_pipe[0], stderr_pipe[0], stdout_file, stderr_file);
  }
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !reaped_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (output_copier_.joinable()) output_copier_.join();
}

void ChildProcess::send_signal(int signal) {
  if (!reaped_) kill(pid_, signal);
}

void ChildProcess::limit_file_size(std::uint64_t bytes) {
  const rlimit limit{static_cast<rlim_t>(bytes), static_cast<rlim_t>(bytes)};
  if (reaped_ || prlimit(pid_, RLIMIT_FSIZE, &limit, nullptr) != 0) throw std::runtime_error("prlimit failed");
}

int ChildProcess::wait() {
  if (!reaped_) {
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0) {
    }
    reaped_ = true;
    status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    signal_ = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (output_copier_.joinable()) output_copier_.join();
  }
  return status_;
}

std::vector<pid_t> child_processes(pid_t parent) {
  std::vector<pid_t> children;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    // /proc/PID/stat: "pid (comm) state ppid ...", comm may hold spaces and parentheses.
    const std::string stat = read_file(entry.path() / "stat");
    const std::size_t after_comm = stat.rfind(')');
    if (after_comm == std::string::npos) continue;
    std::istringstream rest(stat.substr(after_comm + 1));
    std::string state;
    pid_t ppid = 0;
    if (rest >> state >> ppid && ppid == parent) children.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return children;
}

bool process_is_alive(pid_t pid) {
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t after_comm = stat.rfind(')');
  if (after_comm == std::string::npos) return false;  // gone
  std::istringstream rest(stat.substr(after_comm + 1));
  std::string state;
  rest >> state;
  return state != "Z" && state != "X";
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool wait_for_lines(const std::filesystem::path& path, std::size_t lines, std::chrono::milliseconds timeout) {
  const std::chrono::milliseconds step(10);
  for (std::chrono::milliseconds waited(0); waited < timeout; waited += step) {
    const std::string text = read_file(path);
    if (static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) >= lines) return true;
    std::this_thread::sleep_for(step);
  }
  return false;
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
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
