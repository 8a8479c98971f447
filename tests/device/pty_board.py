"""A MicroPython board without hardware: the unix port's REPL on a
pseudo-terminal, relayed to a second pseudo-terminal that mpremote opens as
the board's serial port (see ../shared/NOTES-micropython.md). The board's
file system is the process's working directory.

`cut()` pulls the cable (the relay stops and the host side closes) while the
MicroPython process keeps running; `cut_after(n)` pulls it once n more bytes
have gone to the board (mid-command); `reconnect()` plugs a new cable in.
"""

import os
import pty
import select
import subprocess
import threading
import tty


class PtyBoard:
    def __init__(self, cwd, exe):
        master, slave = pty.openpty()
        tty.setraw(slave)
        self.proc = subprocess.Popen([exe, "-i"], stdin=slave, stdout=slave, stderr=slave, cwd=cwd, start_new_session=True)
        os.close(slave)
        self.cwd = cwd
        self._device = master
        self._link = None
        self._budget = None
        self.reconnect()

    def reconnect(self):
        """A new host-side pty relayed to the board; sets self.port."""
        self.cut()
        host, slave = pty.openpty()
        tty.setraw(slave)
        self.port = os.ttyname(slave)
        link = {"host": host, "slave": slave, "stop": threading.Event(), "lock": threading.Lock(), "open": True}
        link["thread"] = threading.Thread(target=self._relay, args=(link,), daemon=True)
        self._link = link
        link["thread"].start()

    def cut_after(self, nbytes):
        self._budget = nbytes

    @staticmethod
    def _close_host(link):
        with link["lock"]:
            if link["open"]:
                link["open"] = False
                os.close(link["host"])

    def _relay(self, link):
        host = link["host"]
        while not link["stop"].is_set():
            ready, _, _ = select.select([self._device, host], [], [], 0.05)
            for fd in ready:
                try:
                    data = os.read(fd, 4096)
                except OSError:
                    return
                if fd == self._device:
                    os.write(host, data)
                    continue
                if self._budget is not None:
                    data = data[: self._budget]
                    self._budget -= len(data)
                os.write(self._device, data)
                if self._budget == 0:  # the cable is pulled here
                    self._budget = None
                    link["stop"].set()
                    self._close_host(link)
                    return

    def cut(self):
        link, self._link = self._link, None
        if link is None:
            return
        link["stop"].set()
        link["thread"].join()
        self._close_host(link)
        os.close(link["slave"])

    def close(self):
        self.cut()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        os.close(self._device)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
