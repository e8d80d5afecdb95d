"""What a batch shows while it runs: a bar with an ETA on a terminal, one log line per
submission otherwise (a Slurm task's log is not a terminal)."""
import sys
import threading
import time


class Progress:
    def __init__(self, total, quiet=False):
        self.total, self.done, self.start = total, 0, time.time()
        self.tty = sys.stderr.isatty() and not quiet
        self.quiet = quiet
        self.lock = threading.Lock()

    def finished(self, r):
        with self.lock:
            self.done += 1
            if self.tty:
                elapsed = time.time() - self.start
                eta = elapsed / self.done * (self.total - self.done)
                width = 30
                filled = int(width * self.done / max(1, self.total))
                sys.stderr.write(f"\r[{'=' * filled}{' ' * (width - filled)}] {self.done}/{self.total} "
                                 f"ETA {int(eta // 60)}m{int(eta % 60):02d}s  {r['submission'][:30]:<30}")
                if self.done == self.total:
                    sys.stderr.write("\n")
                sys.stderr.flush()
            elif not self.quiet:
                print(f"[batch] {self.done}/{self.total} {r['submission']}: {r['status']} "
                      f"{r['score']}/{r['max_score']}", file=sys.stderr, flush=True)
