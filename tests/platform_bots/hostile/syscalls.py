"""Hostile: calls each system call the sandbox's seccomp filter refuses (x86-64 numbers,
through ctypes), writes on stderr what each answered (``REFUSED name: EPERM`` or
``ANSWERED name: ...``), checks that a thread and a child process still start, has a child
make an x32 call and another an i386 one (the filter kills both), then plays legally."""

import ctypes
import errno
import os
import platform
import signal
import sys
import threading

CLONE_NEWUSER = 0x10000000
# name: (number, arguments): arguments an unfiltered kernel answers otherwise than EPERM
# where it can (io_uring_setup's NULL params: EFAULT; keyctl: the session keyring's id).
CALLS = {
    "io_uring_setup": (425, (1, 0)), "io_uring_enter": (426, (0, 0, 0, 0, 0, 0)),
    "io_uring_register": (427, (0, 0, 0, 0)),
    "keyctl": (250, (0, -3, 0)), "add_key": (248, (0, 0, 0, 0, 0)),
    "request_key": (249, (0, 0, 0, 0)), "bpf": (321, (999, 0, 0)), "userfaultfd": (323, (0,)),
    "perf_event_open": (298, (0, 0, -1, -1, 0)), "ptrace": (101, (0, 0, 0, 0)),
    "process_vm_readv": (310, (1, 0, 0, 0, 0, 0)), "kexec_load": (246, (0, 0, 0, 0)),
    "kexec_file_load": (320, (-1, -1, 0, 0, 0)), "init_module": (175, (0, 0, 0)),
    "finit_module": (313, (-1, 0, 0)), "delete_module": (176, (0, 0)),
    "mount": (165, (0, 0, 0, 0, 0)), "umount2": (166, (0, 0)), "pivot_root": (155, (0, 0)),
    "unshare": (272, (CLONE_NEWUSER,)), "setns": (308, (-1, 0)),
    "personality": (135, (0x0040000,)), "open_by_handle_at": (304, (-1, 0, 0)),
    "swapon": (167, (0, 0)), "swapoff": (168, (0,)), "reboot": (169, (0, 0, 0, 0)),
    "acct": (163, (0,)), "quotactl": (179, (0, 0, 0, 0)), "lookup_dcookie": (212, (0, 0, 0)),
    "clone(CLONE_NEWUSER)": (56, (CLONE_NEWUSER | signal.SIGCHLD, 0, 0, 0, 0)),
}


def x32_getpid(libc):
    """getpid through the x32 ABI: its call numbers have bit 30 set."""
    libc.syscall(ctypes.c_long(0x40000000 + 39))


def i386_getpid(libc):
    """getpid through the i386 entry (int 0x80) from 64-bit code: eax = 20; int 0x80; ret."""
    code = b"\xb8\x14\x00\x00\x00\xcd\x80\xc3"
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long)
    page = libc.mmap(None, 4096, 7, 0x22, -1, 0)  # read, write, exec; private, anonymous
    ctypes.memmove(page, code, len(code))
    ctypes.CFUNCTYPE(ctypes.c_int)(page)()


def say(text):
    print(text, file=sys.stderr, flush=True)


def main():
    if platform.machine() != "x86_64":
        say(f"SKIPPED: the numbers are x86-64's, this is {platform.machine()}")
    else:
        with open("/proc/self/status") as f:
            say(next(line.strip() for line in f if line.startswith("Seccomp:")))
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        for name, (number, args) in CALLS.items():
            ctypes.set_errno(0)
            result = libc.syscall(ctypes.c_long(number), *(ctypes.c_long(a) for a in args))
            if result == 0 and number == 56:
                os._exit(0)  # a child made by clone: it must not play
            code = ctypes.get_errno()
            if result == -1 and code == errno.EPERM:
                say(f"REFUSED {name}: EPERM")
            else:
                say(f"ANSWERED {name}: {result} ({errno.errorcode.get(code, code)})")
        started = []
        thread = threading.Thread(target=lambda: started.append(1))
        thread.start()
        thread.join()
        say(f"THREAD: {'started' if started else 'refused'}")
        for abi, call in (("X32", x32_getpid), ("I386", i386_getpid)):
            child = os.fork()
            if child == 0:
                call(libc)
                os._exit(0)
            status = os.waitpid(child, 0)[1]
            killed = os.WIFSIGNALED(status) and signal.Signals(os.WTERMSIG(status)).name
            say(f"{abi}: {'killed by ' + killed if killed else 'ran'}")
    import bot

    bot.main()


if __name__ == "__main__":
    main()
