"""The sandbox's seccomp filter: a deny-list of the kernel's riskiest system calls.

bwrap loads it (``--seccomp FD``) after it has set up the sandbox, just
before it runs the command inside, so bwrap itself may still mount and
unshare; everything inside runs under it. A call on the list fails with
``EPERM`` (a bot is refused and plays on); ``clone3`` fails with ``ENOSYS``,
as its flags cannot be read by a filter and the C libraries then fall back
to ``clone``, whose namespace flags are refused. A call of another
architecture (the i386 ``int 0x80`` entry, the x32 ABI) kills the process.

The program is compiled by libseccomp (Debian's ``libseccomp2``, the C library
that systemd, Docker and Flatpak use) through `ctypes`: no Python package. If
the library is missing there is no filter, and `filter_file` says why.

>>> sorted(DENIED)[:3]
['acct', 'add_key', 'bpf']
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import functools
import hashlib
import os
import tempfile
from pathlib import Path

# Refused with EPERM: async I/O that bypasses the filter (io_uring), the kernel's key store,
# BPF programs, page-fault handlers in user space (a classic exploit aid), tracing others,
# modules, mounts and namespaces, raw file handles, the machine's swap, reboot, accounting,
# quotas, the clock, kernel logs, I/O ports and the old and obsolete calls.
DENIED = frozenset({
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "keyctl", "add_key", "request_key",
    "bpf", "userfaultfd", "perf_event_open", "fanotify_init",
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "create_module", "query_module", "get_kernel_syms",
    "mount", "umount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree",
    "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "unshare", "setns", "open_by_handle_at", "name_to_handle_at",
    "swapon", "swapoff", "reboot", "acct", "quotactl", "quotactl_fd", "lookup_dcookie",
    "vm86", "vm86old", "uselib", "ustat", "sysfs", "nfsservctl", "syslog",
    "iopl", "ioperm", "settimeofday", "stime", "clock_settime", "clock_adjtime",
})
# clone's flags that make a namespace (a user namespace above all): refused with EPERM.
CLONE_NAMESPACES = {"CLONE_NEWNS": 0x00020000, "CLONE_NEWCGROUP": 0x02000000,
                    "CLONE_NEWUTS": 0x04000000, "CLONE_NEWIPC": 0x08000000,
                    "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000,
                    "CLONE_NEWNET": 0x40000000}
# personality's flags that weaken the process (no address randomisation, executable data,
# a page at address 0, the old layout): refused with EPERM; plain personas are allowed.
PERSONALITY_FLAGS = {"ADDR_NO_RANDOMIZE": 0x0040000, "MMAP_PAGE_ZERO": 0x0100000,
                     "ADDR_COMPAT_LAYOUT": 0x0200000, "READ_IMPLIES_EXEC": 0x0400000}

# libseccomp's constants (seccomp.h)
_ALLOW = 0x7FFF0000
_KILL_PROCESS = 0x80000000
_ERRNO = 0x00050000
_ATTR_BADARCH = 2  # SCMP_FLTATR_ACT_BADARCH
_CMP_MASKED_EQ = 7  # SCMP_CMP_MASKED_EQ


class _ArgCmp(ctypes.Structure):
    """struct scmp_arg_cmp: argument `arg` compared by `op` with `a` (and `b`)."""

    _fields_ = (("arg", ctypes.c_uint), ("op", ctypes.c_int),
                ("a", ctypes.c_uint64), ("b", ctypes.c_uint64))


class SeccompError(OSError):
    """libseccomp is missing or refused the filter."""


def _library() -> ctypes.CDLL:
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(name, use_errno=True)
    except OSError as exc:
        raise SeccompError(f"libseccomp is not installed (apt-get install libseccomp2): "
                           f"{exc}") from None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = (ctypes.c_uint32,)
    lib.seccomp_release.argtypes = (ctypes.c_void_p,)
    lib.seccomp_attr_set.argtypes = (ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32)
    lib.seccomp_syscall_resolve_name.argtypes = (ctypes.c_char_p,)
    lib.seccomp_rule_add_array.argtypes = (ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                           ctypes.c_uint, ctypes.POINTER(_ArgCmp))
    lib.seccomp_export_bpf.argtypes = (ctypes.c_void_p, ctypes.c_int)
    return lib


def program() -> bytes:
    """The filter as classic BPF for this machine's architecture (what bwrap loads).
    Raises `SeccompError` if libseccomp is missing or refuses a rule."""
    lib = _library()
    ctx = lib.seccomp_init(_ALLOW)
    if not ctx:
        raise SeccompError("seccomp_init failed")

    def check(result: int, what: str) -> None:
        if result < 0:
            raise SeccompError(-result, f"libseccomp refused {what}: {os.strerror(-result)}")

    def deny(name: str, action: int, *masks: int) -> None:
        number = lib.seccomp_syscall_resolve_name(name.encode())
        if number < 0:  # __NR_SCMP_ERROR: no such call on this architecture
            return
        if not masks:
            check(lib.seccomp_rule_add_array(ctx, action, number, 0, None), name)
        for mask in masks:  # one rule each: refused if any flag is set
            cmp = _ArgCmp(0, _CMP_MASKED_EQ, mask, mask)
            check(lib.seccomp_rule_add_array(ctx, action, number, 1, ctypes.byref(cmp)), name)

    try:
        check(lib.seccomp_attr_set(ctx, _ATTR_BADARCH, _KILL_PROCESS), "the bad-arch action")
        eperm = _ERRNO | errno.EPERM
        for name in sorted(DENIED):
            deny(name, eperm)
        deny("clone", eperm, *CLONE_NAMESPACES.values())
        deny("clone3", _ERRNO | errno.ENOSYS)
        deny("personality", eperm, *PERSONALITY_FLAGS.values())
        fd = os.memfd_create("ninefold-seccomp")
        try:
            check(lib.seccomp_export_bpf(ctx, fd), "the export")
            os.lseek(fd, 0, os.SEEK_SET)
            chunks = []
            while chunk := os.read(fd, 65536):
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)
    finally:
        lib.seccomp_release(ctx)


def _private_folder() -> Path:
    """A folder of this user's, 0700, in the temporary directory (made if missing)."""
    folder = Path(tempfile.gettempdir()) / f"ninefold-sandbox-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    info = folder.lstat()
    if not folder.is_dir() or folder.is_symlink() or info.st_uid != os.getuid() \
            or info.st_mode & 0o077:
        raise SeccompError(f"{folder} is not a private folder of this user's")
    return folder


@functools.cache
def filter_file() -> Path:
    """The compiled filter, in a file only this user may write (bwrap reads it through an
    open file descriptor). Raises `SeccompError` if it cannot be made."""
    data = program()
    path = _private_folder() / f"seccomp-{hashlib.sha256(data).hexdigest()[:16]}.bpf"
    if not path.exists() or path.read_bytes() != data:
        temp = path.with_suffix(f".{os.getpid()}.tmp")
        temp.write_bytes(data)
        temp.chmod(0o644)
        os.replace(temp, path)
    return path
