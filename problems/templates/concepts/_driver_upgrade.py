"""The half-done driver upgrade bank of cluster-triage (problems/templates/concepts/
cluster_triage.py): what a node left between two driver versions shows, and what it
needs. Kept apart only to keep each module short; the sources are the template's."""

from __future__ import annotations

from problems.templates.concepts._bank import Question, Slip, Topic

RELOAD, FM, DKMS, NOT_DRIVER = (
    "load-new-module",
    "match-fabric-manager",
    "build-module",
    "not-the-driver",
)
DRIVER = Topic(
    part="driver",
    label="What the half-done upgrade needs",
    clue=(
        "A driver is several pieces that must carry one version: the user-space "
        "libraries, the kernel module actually loaded (what /proc/driver/nvidia/version "
        "reports), the module built for the running kernel, and on NVSwitch systems the "
        "NVSwitch management daemon; a package upgrade changes files on disk, not what is "
        "already loaded."
    ),
    choices=(RELOAD, FM, DKMS, NOT_DRIVER),
    meanings=(
        (RELOAD, "drain the node, then reboot or unload and reload the nvidia modules"),
        (FM, "install and start Fabric Manager at exactly the driver's version"),
        (DKMS, "build and install the kernel module for the running kernel"),
        (NOT_DRIVER, "the driver is fine: the fault is elsewhere"),
    ),
    questions=(
        Question(
            "Unattended upgrades moved node gpu-14's NVIDIA packages from 535.161.08 to "
            "535.183.01 last night. Now `nvidia-smi` prints `Failed to initialize NVML: "
            "Driver/library version mismatch`, and `/proc/driver/nvidia/version` still says "
            "535.161.08. What does the node need?",
            RELOAD,
            "the new libraries are on disk but the old kernel module is still loaded; "
            "loading the new module (drain and reboot) makes them agree.",
            (
                Slip(FM, "mismatch-as-fabric-manager",
                     "An NVML version mismatch blamed on Fabric Manager",
                     "The mismatch is between the NVML library and the loaded kernel "
                     "module; nvidia-smi does not need Fabric Manager to start."),
                Slip(DKMS, "mismatch-as-unbuilt-module",
                     "A loaded old module taken for a missing one",
                     "A module is loaded, the old one; it only has to be replaced by the "
                     "new one already installed."),
                Slip(NOT_DRIVER, "mismatch-not-driver",
                     "An NVML version mismatch taken for a non-driver fault",
                     "The message is the driver's own: its library and kernel module carry "
                     "different versions."),
            ),
        ),
        Question(
            "On a node whose jobs from yesterday are still training normally, every new "
            "container fails with `nvidia-container-cli: initialization error: nvml error: "
            "driver/library version mismatch`, and the kernel log has `NVRM: API mismatch: "
            "the client has the version 550.90.07, but this kernel module has the version "
            "550.54.15`. What does the node need?",
            RELOAD,
            "running processes keep the old libraries they loaded, new ones get 550.90.07 "
            "against the 550.54.15 module: drain, then load the new module.",
            (
                Slip(FM, "api-mismatch-as-fabric-manager",
                     "An API mismatch blamed on Fabric Manager",
                     "The NVRM line names the kernel module and the client library; Fabric "
                     "Manager is not part of it."),
                Slip(DKMS, "api-mismatch-as-unbuilt", "An API mismatch taken for an unbuilt module",
                     "The 550.54.15 module is loaded and working for the old jobs; the new "
                     "one needs loading, not building."),
                Slip(NOT_DRIVER, "running-jobs-prove-driver",
                     "Healthy old jobs taken as proof the driver is fine",
                     "The old jobs run on libraries loaded before the upgrade; anything "
                     "started since sees the mismatch."),
            ),
        ),
        Question(
            "An HGX H100 node was upgraded to driver 550.90.07 and rebooted. `nvidia-smi` "
            "lists all 8 GPUs, but every CUDA program fails with `cudaErrorSystemNotReady: "
            "system not yet initialized`, and `systemctl status nvidia-fabricmanager` shows "
            "the service failed after logging a version mismatch: it is still 535.161.08. "
            "What does the node need?",
            FM,
            "on NVSwitch systems CUDA waits for Fabric Manager to set up the NVLink "
            "fabric, and Fabric Manager must be exactly the driver's version.",
            (
                Slip(RELOAD, "fm-as-module-reload",
                     "A Fabric Manager mismatch fixed by reloading the driver",
                     "The node was rebooted and nvidia-smi works: the module is right. The "
                     "stale piece is Fabric Manager."),
                Slip(DKMS, "fm-as-unbuilt-module",
                     "A Fabric Manager mismatch taken for an unbuilt module",
                     "nvidia-smi talks to the loaded 550.90.07 module; it is built and "
                     "loaded."),
                Slip(NOT_DRIVER, "fm-not-driver",
                     "A Fabric Manager mismatch taken for a non-driver fault",
                     "Fabric Manager is versioned with the driver; left behind at 535, it "
                     "keeps CUDA from starting."),
            ),
        ),
        Question(
            "After a kernel update and reboot, `nvidia-smi` on gpu-30 says `NVIDIA-SMI has "
            "failed because it couldn't communicate with the NVIDIA driver`, `lsmod | grep "
            "nvidia` prints nothing, and `dkms status` lists nvidia/550.90.07 as installed "
            "only for the previous kernel. What does the node need?",
            DKMS,
            "no module exists for the running kernel, so none is loaded; build it with "
            "DKMS (the kernel headers must be installed) and load it.",
            (
                Slip(RELOAD, "unbuilt-as-reload", "A missing module fixed by reloading",
                     "There is nothing to reload: no nvidia module was ever built for this "
                     "kernel."),
                Slip(FM, "unbuilt-as-fabric-manager", "A missing module blamed on Fabric Manager",
                     "Without a kernel module nothing of the driver runs; Fabric Manager "
                     "comes after it."),
                Slip(NOT_DRIVER, "unbuilt-not-driver",
                     "A missing module taken for a non-driver fault",
                     "lsmod shows no nvidia module: the driver is not running at all."),
            ),
        ),
        Question(
            "After a cluster-wide upgrade to driver 550.90.07, every node reports 550.90.07 "
            "in `nvidia-smi` and in `/proc/driver/nvidia/version`, nvidia-fabricmanager "
            "550.90.07 is active, and most jobs run. One team's job fails on H100 nodes with "
            "`CUDA error: no kernel image is available for execution on the device`. What "
            "does it need?",
            NOT_DRIVER,
            "every driver piece agrees; the team's binary carries no code for the H100's "
            "architecture (sm_90), so it must be rebuilt for it.",
            (
                Slip(RELOAD, "arch-as-reload", "Missing GPU code fixed by reloading the driver",
                     "The loaded module already matches the libraries; reloading it changes "
                     "nothing in the team's binary."),
                Slip(FM, "arch-as-fabric-manager", "Missing GPU code blamed on Fabric Manager",
                     "Fabric Manager is active at the right version, and other jobs run."),
                Slip(DKMS, "arch-as-unbuilt", "Missing GPU code taken for an unbuilt module",
                     "The kernel module is loaded; the missing code is in the program, "
                     "compiled without the H100's architecture."),
            ),
        ),
    ),
)  # fmt: skip
