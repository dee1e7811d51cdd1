"""The failures stack-layer-error draws: what each one prints, its answer, and the two
misreadings it names. Message wording follows public logs of the real tools (see the
template's docstring); host names, addresses, PIDs and UUIDs are made up per variant.
"""

from __future__ import annotations

import random
from typing import Any

from problems.templates._nvidia_smi import gpu_uuid, list_gpus
from problems.templates.software_stack._family import (
    DRIVER_VERSIONS,
    DRIVERS,
    NV_GPUS,
    cu_tag,
    found_version,
)

LAYERS = {
    "driver": "the kernel driver and GPU firmware",
    "cuda-runtime": "the CUDA runtime and toolkit libraries (libcudart)",
    "library": "math and collective libraries (cuDNN, cuBLAS, NCCL)",
    "framework": "the framework build (which CUDA version and GPU architectures it was built for)",
    "container": "the container image and container runtime",
    "launcher": "the distributed launcher (torchrun rendezvous, ranks, addresses)",
}
FIXES = {
    "upgrade-driver": "install a newer NVIDIA driver branch on the host",
    "reload-driver": "reboot the node (or reload the nvidia kernel modules)",
    "matching-wheel": "install a framework build made for this GPU and CUDA version",
    "install-library": "add the missing runtime or library to the image or environment",
    "expose-gpus": "install and configure the NVIDIA container toolkit and start the "
    "container with GPUs",
    "fix-rendezvous": "give every node the same reachable master address and port",
    "nccl-interface": "point NCCL_SOCKET_IFNAME at an interface the nodes have",
}

_DRIVER_FOR_LIB = (
    "upgrade-driver",
    "driver-for-missing-library",
    "A driver upgrade cannot add a shared library to the image: the loader names the "
    "missing file, and it ships with the CUDA or library packages, not with the driver.",
)

SCENARIOS: dict[str, dict[str, Any]] = {
    "old-driver": {
        "answer": ("driver", "upgrade-driver"),
        "why": "PyTorch reports the driver's CUDA version as `found version`: 11040 and the "
        "like mean CUDA 11.x, while the wheel bundles a CUDA 12 runtime. A 12.x build needs "
        "at least driver 525.60.13 even with minor-version compatibility, and the fleet's "
        "newer driver runs the same image.",
        "layer_slip": (
            "cuda-runtime",
            "runtime-blamed-for-old-driver",
            "The CUDA runtime reports the problem but is not the one at fault: the wheel's "
            "runtime is the one the whole fleet runs; the host driver is too old for it.",
        ),
        "fix_slip": (
            "install-library",
            "toolkit-for-driver",
            "Installing a CUDA toolkit or runtime in the image does not change the kernel "
            "driver: libcuda.so and the kernel module come from the host's driver package.",
        ),
    },
    "nvml-mismatch": {
        "answer": ("driver", "reload-driver"),
        "why": "The kernel log shows two driver versions: the user-space libraries (the "
        "'client', here NVML used by nvidia-smi) are the newly installed ones, while the "
        "loaded kernel module is still the old one. Until the node reboots or the modules "
        "are reloaded, nothing can use the GPUs.",
        "layer_slip": (
            "library",
            "nvml-read-as-library",
            "NVML is the driver's own management library, not a math or collective library: "
            "'library version' here means the driver's user-space half.",
        ),
        "fix_slip": (
            "upgrade-driver",
            "mismatch-read-as-old-driver",
            "The newer driver is already installed; the kernel is still running the old "
            "module. Installing another driver adds a third version instead of loading one.",
        ),
    },
    "no-kernel-image": {
        "answer": ("framework", "matching-wheel"),
        "why": "PyTorch's warning lists the architectures this wheel was compiled for "
        "(up to sm_90), and the B200 is sm_100: the wheel holds no kernel the GPU can run. "
        "Blackwell kernels arrive with the cu128 builds.",
        "layer_slip": (
            "driver",
            "arch-blamed-on-driver",
            "The driver is fine (it initialised the GPU and reported sm_100); the missing "
            "kernels are missing from the framework build.",
        ),
        "fix_slip": (
            "upgrade-driver",
            "driver-upgrade-for-arch",
            "A newer driver cannot supply sm_100 kernels the wheel was never compiled with; "
            "only a build that includes them (cu128 or later) can.",
        ),
    },
    "cudnn-missing": {
        "answer": ("library", "install-library"),
        "why": "`import torch` fails to load libcudnn.so.9. The Dockerfile installs PyTorch "
        "with --no-deps and then adds nvidia-* packages by hand, without "
        "nvidia-cudnn-cu12: cuDNN, a separate library with its own versions, was left out.",
        "layer_slip": (
            "cuda-runtime",
            "cudnn-read-as-cuda",
            "cuDNN is a separate library on top of CUDA, with its own package and version; "
            "the CUDA runtime (libcudart) loaded fine.",
        ),
        "fix_slip": _DRIVER_FOR_LIB,
    },
    "cudart-missing": {
        "answer": ("cuda-runtime", "install-library"),
        "why": "`import torch` cannot load libcudart.so.12, the CUDA runtime, which the "
        "cu12 wheels take from the nvidia-cuda-runtime-cu12 package; installing with "
        "--no-deps and then adding the other nvidia-* packages by hand left it out. The "
        "driver's own library, libcuda.so.1, is there.",
        "layer_slip": (
            "driver",
            "cudart-read-as-driver",
            "libcudart is the CUDA runtime, which ships with the toolkit or (here) a pip "
            "package; the driver's library is libcuda.so.1, and it is there.",
        ),
        "fix_slip": _DRIVER_FOR_LIB,
    },
    "no-gpus-in-container": {
        "answer": ("container", "expose-gpus"),
        "why": "The host sees all eight GPUs, but the container was started without "
        "`--gpus`, so no device nodes or driver libraries were mounted into it, and "
        "PyTorch finds no driver.",
        "layer_slip": (
            "driver",
            "host-driver-blamed",
            "The host's driver works (nvidia-smi -L lists the GPUs); the container was "
            "never given the GPUs or the driver's libraries.",
        ),
        "fix_slip": (
            "upgrade-driver",
            "driver-reinstall-for-container",
            "Reinstalling the driver changes nothing inside a container that was started "
            "without GPUs: the container runtime must mount them.",
        ),
    },
    "docker-no-gpu-runtime": {
        "answer": ("container", "expose-gpus"),
        "why": "Docker has no runtime that can satisfy a GPU request (only runc is "
        "registered): the NVIDIA container toolkit is missing or not configured, while the "
        "host driver works.",
        "layer_slip": (
            "driver",
            "device-driver-misread",
            "The 'device driver' in Docker's message is Docker's device-request plugin, "
            "not the kernel driver, which works (nvidia-smi -L lists the GPUs).",
        ),
        "fix_slip": (
            "reload-driver",
            "kernel-driver-for-docker",
            "Reloading the kernel driver does not give Docker a GPU runtime; installing and "
            "configuring the NVIDIA container toolkit does.",
        ),
    },
    "rendezvous-port": {
        "answer": ("launcher", "fix-rendezvous"),
        "why": "Node 0 hosts the rendezvous store on its --master-port, but the failing "
        "node was launched with a different port, so its connections are refused until the "
        "timeout. NCCL is never reached.",
        "layer_slip": (
            "library",
            "nccl-blamed-for-rendezvous",
            "The failure is in c10d's TCP store, before any NCCL communicator exists: "
            "the ranks never found each other.",
        ),
        "fix_slip": (
            "nccl-interface",
            "nccl-tuning-for-store",
            "NCCL settings do not touch the rendezvous store: torchrun connects to "
            "master-addr:master-port first, and the ports differ.",
        ),
    },
    "nccl-no-interface": {
        "answer": ("library", "nccl-interface"),
        "why": "Rendezvous finished (the process group is being created), then NCCL's "
        "bootstrap found no interface matching NCCL_SOCKET_IFNAME: the nodes have no "
        "interface of that name.",
        "layer_slip": (
            "launcher",
            "launcher-blamed-for-nccl",
            "The launcher did its job: the ranks met and NCCL started; the error is NCCL's "
            "own bootstrap looking for the interface it was told to use.",
        ),
        "fix_slip": (
            "fix-rendezvous",
            "rendezvous-fix-for-nccl",
            "The master address and port were fine (the ranks reached NCCL); NCCL needs "
            "NCCL_SOCKET_IFNAME to name an interface that exists.",
        ),
    },
}

_PY = "/opt/venv/lib/python3.11/site-packages"


def _host(h: int) -> str:
    return f"gpu-node-{(h >> 8) % 90 + 10:02d}"


def _gpu_list(p: Any, h: int) -> str:
    """`nvidia-smi -L` on the host: eight GPUs with UUIDs of the real 8-4-4-4-12 form."""
    rng = random.Random(h)
    return list_gpus(NV_GPUS[p.gpu].name, [gpu_uuid(rng) for _ in range(8)])


def _image(p: Any) -> str:
    return f"registry.internal/train:torch{p.torch}-{cu_tag(p.cuda)}"


def _run(p: Any) -> str:
    return f"torchrun --nnodes={p.n_nodes} --nproc-per-node=8 train.py --model {p.model}"


def _driver_of(p: Any) -> str:
    return p.driver


def newer_driver(driver: str) -> str:
    return DRIVER_VERSIONS[DRIVER_VERSIONS.index(driver) + 1]


def log(p: Any, h: int) -> str:
    """The output the engineer collected for this failure."""
    host, pid = _host(h), 2000 + h % 60000
    s = p.scenario
    if s == "old-driver":
        found = found_version(DRIVERS[p.driver][1])
        msg = (
            f"The NVIDIA driver on your system is too old (found version {found}). Please "
            "update your GPU driver by downloading and installing a new version from the "
            "URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: "
            "https://pytorch.org to install a PyTorch version that has been compiled with "
            "your version of the CUDA driver."
        )
        return (
            f"[{host}] $ {_run(p)}\n"
            f"{_PY}/torch/cuda/__init__.py:129: UserWarning: CUDA initialization: {msg} "
            "(Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)\n"
            "  return torch._C._cuda_getDeviceCount() > 0\n"
            "Traceback (most recent call last):\n"
            '  File "/workspace/train.py", line 38, in <module>\n'
            "    torch.cuda.set_device(local_rank)\n"
            "[...]\n"
            f"RuntimeError: {msg}"
        )
    if s == "nvml-mismatch":
        new = newer_driver(p.driver)
        t = 4000 + h % 5000
        return (
            f"[{host}] $ nvidia-smi\n"
            "Failed to initialize NVML: Driver/library version mismatch\n"
            f"[{host}] $ sudo dmesg | grep NVRM | tail -n 4\n"
            f"[{t}.{h % 999999:06d}] NVRM: API mismatch: the client has the version {new}, but\n"
            f"               NVRM: this kernel module has the version {p.driver}.  Please\n"
            "               NVRM: make sure that this kernel module and all NVIDIA driver\n"
            "               NVRM: components have the same version."
        )
    if s == "no-kernel-image":
        name = NV_GPUS[p.gpu].name
        return (
            f"[{host}] $ {_run(p)}\n"
            f"{_PY}/torch/cuda/__init__.py:235: UserWarning: \n"
            f"{name} with CUDA capability sm_100 is not compatible with the current "
            "PyTorch installation.\n"
            "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 "
            "sm_75 sm_80 sm_86 sm_90.\n"
            f"If you want to use the {name} GPU with PyTorch, please check the "
            "instructions at https://pytorch.org/get-started/locally/\n\n"
            "  warnings.warn(\n"
            "Traceback (most recent call last):\n"
            '  File "/workspace/train.py", line 52, in <module>\n'
            "    model = build_model(args).to(device)\n"
            "[...]\n"
            "RuntimeError: CUDA error: no kernel image is available for execution on the "
            "device\n"
            "CUDA kernel errors might be asynchronously reported at some other API call, "
            "so the stacktrace below might be incorrect.\n"
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"
        )
    if s == "cudnn-missing":
        return (
            f"[{host}] $ {_run(p)}\n"
            "Traceback (most recent call last):\n"
            '  File "/workspace/train.py", line 4, in <module>\n'
            "    import torch\n"
            f'  File "{_PY}/torch/__init__.py", line 367, in <module>\n'
            "    from torch._C import *  # noqa: F403\n"
            "ImportError: libcudnn.so.9: cannot open shared object file: No such file or "
            "directory\n"
            f"[{host}] $ grep -n 'pip install' Dockerfile\n"
            f"7:RUN pip install --no-deps torch=={p.torch} --index-url "
            f"https://download.pytorch.org/whl/{cu_tag(p.cuda)}\n"
            "8:RUN pip install nvidia-cuda-runtime-cu12 nvidia-cublas-cu12 nvidia-nccl-cu12"
        )
    if s == "cudart-missing":
        return (
            f"[{host}] $ {_run(p)}\n"
            "Traceback (most recent call last):\n"
            f'  File "{_PY}/torch/__init__.py", line 318, in _load_global_deps\n'
            "    ctypes.CDLL(global_deps_lib_path, mode=ctypes.RTLD_GLOBAL)\n"
            '  File "/usr/lib/python3.11/ctypes/__init__.py", line 376, in __init__\n'
            "    self._handle = _dlopen(self._name, mode)\n"
            "OSError: libcudart.so.12: cannot open shared object file: No such file or "
            "directory\n"
            "[...]\n"
            f"[{host}] $ grep -n 'pip install' Dockerfile\n"
            f"7:RUN pip install --no-deps torch=={p.torch} --index-url "
            f"https://download.pytorch.org/whl/{cu_tag(p.cuda)}\n"
            "8:RUN pip install nvidia-cudnn-cu12 nvidia-cublas-cu12 nvidia-nccl-cu12\n"
            f"[{host}] $ ls /usr/lib/x86_64-linux-gnu | grep libcuda\n"
            f"libcuda.so.1\nlibcuda.so.{_driver_of(p)}"
        )
    if s == "no-gpus-in-container":
        return (
            f"[{host}] $ nvidia-smi -L\n{_gpu_list(p, h)}\n"
            f"[{host}] $ docker run --rm {_image(p)} python -c "
            "'import torch; torch.zeros(1).cuda()'\n"
            "Traceback (most recent call last):\n"
            '  File "<string>", line 1, in <module>\n'
            f'  File "{_PY}/torch/cuda/__init__.py", line 319, in _lazy_init\n'
            "    torch._C._cuda_init()\n"
            "RuntimeError: Found no NVIDIA driver on your system. Please check that you "
            "have an NVIDIA GPU and installed a driver from "
            "http://www.nvidia.com/Download/index.aspx"
        )
    if s == "docker-no-gpu-runtime":
        return (
            f"[{host}] $ nvidia-smi -L\n{_gpu_list(p, h)}\n"
            f"[{host}] $ docker run --rm --gpus all {_image(p)} nvidia-smi\n"
            'docker: Error response from daemon: could not select device driver "" with '
            "capabilities: [[gpu]].\n"
            f"[{host}] $ docker info | grep -i runtime\n"
            " Runtimes: io.containerd.runc.v2 runc\n"
            " Default Runtime: runc"
        )
    addr = f"10.{40 + h % 8}.{h % 250}.{11 + h % 40}"
    last = p.n_nodes - 1
    if s == "rendezvous-port":
        good, bad = 29500, (29400, 29501, 29600)[h % 3]
        common = f"torchrun --nnodes={p.n_nodes} --nproc-per-node=8 --master-addr={addr}"
        fail = (
            "[W socket.cpp:697] [c10d] The client socket has failed to connect to "
            f"[{addr}]:{bad} (errno: 111 - Connection refused)."
        )
        return (
            f"[node 0] $ {common} --master-port={good} --node-rank=0 train.py\n"
            f"[node {last}] $ {common} --master-port={bad} --node-rank={last} train.py\n"
            f"[node {last}] {fail}\n[node {last}] {fail}\n[node {last}] [...]\n"
            f"[node {last}] torch.distributed.DistNetworkError: The client socket has timed "
            f"out after 900000ms while trying to connect to ({addr}, {bad})."
        )
    pre = f"{host}:{pid}:{pid} [0]"
    return (
        f"[node {last}] $ NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth0 torchrun "
        f"--nnodes={p.n_nodes} --nproc-per-node=8 --master-addr={addr} --master-port=29500 "
        f"--node-rank={last} train.py\n"
        f"{pre} NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0\n"
        f"{pre} bootstrap.cc:45 NCCL WARN Bootstrap : no socket interface found\n"
        f"{pre} NCCL INFO init.cc:82 -> 3\n"
        "[...]\n"
        "torch.distributed.DistBackendError: NCCL error in: "
        "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, internal error - please "
        "report this issue to the NCCL developers, NCCL version 2.21.5\n"
        "ncclInternalError: Internal check failed.\nLast error:\n"
        "Bootstrap : no socket interface found\n"
        f"[node {last}] $ ip -br link\n"
        "lo               UNKNOWN        00:00:00:00:00:00 <LOOPBACK,UP,LOWER_UP>\n"
        f"bond0            UP             7c:c2:55:{h % 256:02x}:{(h >> 8) % 256:02x}:10 "
        "<BROADCAST,MULTICAST,MASTER,UP,LOWER_UP>\n"
        f"ib0              UP             00:00:10:29:fe:80:00:00:00:00:00:00:{h % 256:02x}:"
        f"{(h >> 8) % 256:02x}:00:00:00:01 <BROADCAST,MULTICAST,UP,LOWER_UP>"
    )
