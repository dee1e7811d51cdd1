"""gpu-alerting: exporters and alert rules that page on idle, throttled or failing GPUs.

Three parts, each one situation from its bank (problems/templates/concepts/_bank.py):

- signal: which dcgm-exporter metric an alert should read: DCGM_FI_DEV_XID_ERRORS (a
  gauge holding the last Xid code), DCGM_FI_DEV_CLOCK_THROTTLE_REASONS (a bitmask of
  NVML's clock event reasons; newer DCGM releases name it
  DCGM_FI_DEV_CLOCKS_EVENT_REASONS), DCGM_FI_DEV_ECC_DBE_VOL_TOTAL (uncorrectable
  errors since the driver loaded), DCGM_FI_PROF_GR_ENGINE_ACTIVE (the share of time the
  graphics engine is busy) and DCGM_FI_DEV_GPU_TEMP (NVIDIA dcgm-exporter,
  etc/default-counters.csv and etc/dcp-metrics-included.csv; DCGM API "Field
  Identifiers" and "Field Constants"; NVML "ClocksEventReasons");
- rule: what a rule needs: the scheduler's allocation joined in (dcgm-exporter's pod
  labels on Kubernetes or its HPC job mapping under Slurm) so spare GPUs do not page, a
  `for:` duration so a brief dip does not page (Prometheus, "Alerting rules"), only the
  hardware-slowdown bits of the reasons bitmask tested (idle is 0x1, software power cap
  0x4, hardware slowdown 0x8, hardware thermal 0x40, power brake 0x80), or a field that
  the default counters file leaves commented out (the ECC counters) enabled first;
- source: which exporter provides a signal: dcgm-exporter (GPU fields through DCGM),
  node_exporter (the host's /proc and /sys: filesystems, the infiniband collector) or
  kube-state-metrics (Kubernetes objects: pod phase, resource requests) (Prometheus
  node_exporter README; kube-state-metrics docs, "Pod Metrics").

Sentences are ours; the facts are the documents' above.
"""

from __future__ import annotations

from problems.engine.registry import register
from problems.templates.concepts._bank import ConceptTemplate, Question, Slip, Topic

XID, THR = "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS"
DBE = "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"
ACT, TEMP = "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_DEV_GPU_TEMP"
SIGNAL = Topic(
    part="signal",
    label="dcgm-exporter metric for the alert",
    clue=(
        "Pick the field that measures the condition itself: an error event's code, the "
        "reasons the clocks are held down, a count of errors the memory could not "
        "correct, the share of time the engine ran work, or a reading that rises before "
        "any slowdown starts."
    ),
    choices=(XID, THR, DBE, ACT, TEMP),
    questions=(
        Question(
            "You want a page whenever the driver reports an error event on a GPU, the "
            "`NVRM: Xid (PCI:0000:9b:00): 94, ...` lines of the kernel log, with the "
            "event's code in the page so on-call knows which kind it was. Which metric?",
            XID,
            "DCGM_FI_DEV_XID_ERRORS is a gauge holding the code of the last Xid the GPU "
            "reported.",
            (
                Slip(THR, "xid-as-throttle-reasons", "Clock throttle reasons read for error events",
                     "The reasons bitmask says why clocks are down; it carries no Xid code."),
                Slip(DBE, "xid-as-ecc-count", "The ECC error count read for every error event",
                     "Uncorrectable ECC errors are one cause of some Xids; most Xid events "
                     "(79, 13, 31, 119) have nothing to do with ECC."),
                Slip(ACT, "xid-as-activity", "Engine activity read for error events",
                     "Engine activity measures work done, not faults."),
                Slip(TEMP, "xid-as-temperature", "Temperature read for error events",
                     "A temperature says nothing about which error the driver reported."),
            ),
        ),
        Question(
            "You want a page when a GPU runs slowed by hardware: `HW Slowdown`, `HW Thermal "
            "Slowdown` or `HW Power Brake Slowdown` reported Active, as `nvidia-smi -q` "
            "shows under its clocks reasons. Which metric?",
            THR,
            "the reasons field is the bitmask behind those nvidia-smi lines, one bit per "
            "reason.",
            (
                Slip(XID, "throttle-as-xid", "Throttling expected as an Xid event",
                     "Hardware slowdown is a clock state, not an Xid; it shows in the "
                     "reasons bitmask."),
                Slip(DBE, "throttle-as-ecc", "Throttling read from the ECC count",
                     "ECC counts memory errors; a GPU can throttle with none."),
                Slip(ACT, "throttle-as-activity", "Throttling read from engine activity",
                     "A throttled GPU can be busy all the time; activity does not show "
                     "that its clocks are down."),
                Slip(TEMP, "throttle-as-temperature", "Temperature taken as the throttle signal",
                     "A power brake or an external slowdown throttles at normal "
                     "temperature; the reasons bitmask names every cause."),
            ),
        ),
        Question(
            "You want a page when a GPU has had a memory error that ECC could not correct "
            "since the driver was last loaded. Which metric?",
            DBE,
            "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL counts uncorrectable (double-bit) errors since "
            "the driver loaded; any increase is a page.",
            (
                Slip(XID, "ecc-as-xid-only", "The last Xid code used to count ECC errors",
                     "The Xid gauge holds only the last code, overwritten by the next "
                     "event; the ECC counter counts every uncorrectable error."),
                Slip(THR, "ecc-as-throttle", "Memory errors read from the throttle reasons",
                     "The reasons bitmask is about clocks; memory errors are counted "
                     "elsewhere."),
                Slip(ACT, "ecc-as-activity", "Memory errors read from engine activity",
                     "Activity measures work, not errors."),
                Slip(TEMP, "ecc-as-temperature", "Memory errors read from temperature",
                     "A hot GPU is not a count of uncorrectable errors."),
            ),
        ),
        Question(
            "You want a ticket when GPUs allocated to a job have run almost no work for an "
            "hour: a rule such as 'below 0.05 for 60 minutes' on the share of time the "
            "GPU's engine was busy. Which metric?",
            ACT,
            "DCGM_FI_PROF_GR_ENGINE_ACTIVE is the ratio of time the graphics (compute) "
            "engine was active, 0 to 1.",
            (
                Slip(XID, "idle-as-xid", "Idleness read from the Xid gauge",
                     "An idle GPU raises no Xid; the gauge stays at its last code."),
                Slip(THR, "idle-as-throttle-bit", "Idleness read from the throttle reasons",
                     "The reasons field is a bitmask of why clocks are down, not a share "
                     "of time busy; the rule needs a ratio to compare with 0.05."),
                Slip(DBE, "idle-as-ecc", "Idleness read from the ECC count",
                     "ECC counts errors, not work."),
                Slip(TEMP, "idle-as-temperature", "Idleness read from temperature",
                     "Temperature depends on the room and the cooling as much as on work; "
                     "it is no measure of time busy."),
            ),
        ),
        Question(
            "`nvidia-smi -q` on your H100 nodes lists `GPU Slowdown Temp : 89 C`. You want "
            "a warning when a GPU climbs past 85 C, so someone checks its cooling before "
            "any slowdown begins. Which metric?",
            TEMP,
            "only the temperature rises before the slowdown; the reasons bitmask shows it "
            "only once it has started.",
            (
                Slip(XID, "heat-as-xid", "Heat expected as an Xid event",
                     "Overheating on its way to slowdown raises no Xid."),
                Slip(THR, "reasons-before-slowdown",
                     "The throttle reasons read as an early warning",
                     "The slowdown bits are set only once the slowdown has begun; the "
                     "warning must come before."),
                Slip(DBE, "heat-as-ecc", "Heat read from the ECC count",
                     "ECC counts memory errors, not temperature."),
                Slip(ACT, "heat-as-activity", "Heat read from engine activity",
                     "A busy GPU in a well-cooled rack stays cool; activity does not "
                     "measure heat."),
            ),
        ),
    ),
)  # fmt: skip

JOIN, FOR, MASK, ENABLE = "join-allocation", "add-for", "mask-reasons", "enable-field"
RULE = Topic(
    part="rule",
    label="What the alert rule needs",
    clue=(
        "A rule pages on exactly what its expression selects for as long as it is true: "
        "it can only see series the exporter sends, it treats any non-zero bitmask as "
        "true, it knows nothing of which GPUs a job holds unless told, and without a "
        "holding period one bad scrape pages."
    ),
    choices=(JOIN, FOR, MASK, ENABLE),
    meanings=(
        (JOIN, "join with the scheduler's allocation, its pod or job labels"),
        (FOR, "add a `for:` duration so a brief excursion does not page"),
        (MASK, "test only the hardware-slowdown bits of the reasons bitmask"),
        (ENABLE, "add the field to dcgm-exporter's counters file"),
    ),
    questions=(
        Question(
            "An idle-GPU rule, `avg_over_time(DCGM_FI_PROF_GR_ENGINE_ACTIVE[30m]) < 0.05`, "
            "pages every night for the 40 nodes that sit unallocated in the free pool. "
            "What does the rule need?",
            JOIN,
            "idle is waste only when a job holds the GPU: keep the series carrying a pod "
            "or Slurm job label (dcgm-exporter adds them), so free GPUs drop out.",
            (
                Slip(FOR, "idle-pool-as-duration",
                     "A longer holding period used to silence a free pool",
                     "The free nodes stay idle all night; no duration stops them paging."),
                Slip(MASK, "idle-pool-as-mask", "A bitmask fix applied to an activity rule",
                     "This rule reads engine activity, a ratio, not the reasons bitmask."),
                Slip(ENABLE, "idle-pool-as-missing-field", "A field enabled that already reports",
                     "The rule fires, so the field is exported; the rule cannot tell free "
                     "GPUs from allocated ones."),
            ),
        ),
        Question(
            "A rule `DCGM_FI_PROF_GR_ENGINE_ACTIVE < 0.05` with labels that restrict it to "
            "allocated GPUs pages for healthy training jobs during their 40-second "
            "checkpoint pauses. What does the rule need?",
            FOR,
            "a `for: 30m` clause makes the condition hold for half an hour before it "
            "fires, so short pauses never page.",
            (
                Slip(JOIN, "pause-as-allocation", "The allocation join blamed for brief pauses",
                     "The rule already sees only allocated GPUs; these jobs are real and "
                     "pause briefly."),
                Slip(MASK, "pause-as-mask", "A bitmask fix applied to a brief pause",
                     "There is no bitmask here; the rule fires too soon."),
                Slip(ENABLE, "pause-as-missing-field",
                     "A field enabled for a rule that already fires",
                     "The field is exported, since the rule fires; it fires too readily."),
            ),
        ),
        Question(
            "A rule `DCGM_FI_DEV_CLOCK_THROTTLE_REASONS > 0` pages for every idle GPU "
            "(value 1) and every GPU held at its software power cap (value 4). What does "
            "the rule need?",
            MASK,
            "only bits 8 (hardware slowdown), 64 (hardware thermal) and 128 (power brake) "
            "mean trouble; PromQL has no bitwise AND, so test them with arithmetic such as "
            "`floor(x / 8) % 2 == 1`.",
            (
                Slip(JOIN, "mask-as-allocation", "The allocation join used to hide benign reasons",
                     "A GPU at its power cap inside a job still pages; the benign bits "
                     "themselves must be left out."),
                Slip(FOR, "mask-as-duration", "A holding period used to hide benign reasons",
                     "Idle and power-capped GPUs stay that way for hours; a duration does "
                     "not filter them."),
                Slip(ENABLE, "mask-as-missing-field", "A field enabled that already reports",
                     "The rule fires, so the field is exported; it selects the wrong bits."),
            ),
        ),
        Question(
            "A rule on `increase(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL[10m]) > 0` stayed silent "
            "through an incident in which `nvidia-smi -q` showed uncorrectable ECC errors. "
            "Prometheus has no series of that name from the cluster's dcgm-exporter, "
            "which runs its default counters file. What does the rule need?",
            ENABLE,
            "the ECC counters are commented out in dcgm-exporter's default counters file; "
            "add the field to the file the exporter loads.",
            (
                Slip(JOIN, "missing-series-as-allocation",
                     "An allocation join for a series that is absent",
                     "No join can find a series that is never exported."),
                Slip(FOR, "missing-series-as-duration",
                     "A holding period for a series that is absent",
                     "With no series the condition is never true, whatever the duration."),
                Slip(MASK, "missing-series-as-mask", "A bitmask fix for an ECC counter",
                     "The ECC counter is a count, not a bitmask, and it is not exported."),
            ),
        ),
        Question(
            "A rule `DCGM_FI_DEV_GPU_TEMP > 85` pages several times a day when a GPU "
            "crosses 85 C for a scrape or two during a load spike and then settles back "
            "to 78 C. What does the rule need?",
            FOR,
            "a `for:` of a few minutes keeps one-scrape spikes from paging while a GPU "
            "that stays hot still does.",
            (
                Slip(JOIN, "spike-as-allocation", "The allocation join blamed for spikes",
                     "Overheating matters on every GPU, allocated or not; the rule fires "
                     "on spikes."),
                Slip(MASK, "spike-as-mask", "A bitmask fix applied to a temperature",
                     "Temperature is a reading in degrees, not a bitmask."),
                Slip(ENABLE, "spike-as-missing-field", "A field enabled that already reports",
                     "GPU temperature is exported by default, as the pages show."),
            ),
        ),
    ),
)  # fmt: skip

DCGM_EXP, NODE_EXP, KSM = "dcgm-exporter", "node_exporter", "kube-state-metrics"
SOURCE = Topic(
    part="source",
    label="Exporter that provides the signal",
    clue=(
        "Each exporter reads one source: the GPU management library on each GPU node, "
        "the host operating system's /proc and /sys on every node, or the objects the "
        "Kubernetes API server stores."
    ),
    choices=(DCGM_EXP, NODE_EXP, KSM),
    questions=(
        Question(
            "Alert when the local NVMe volume that holds checkpoints on a GPU node passes "
            "90% full. Which exporter provides the signal?",
            NODE_EXP,
            "filesystem sizes and free space come from the host, node_exporter's "
            "`node_filesystem_avail_bytes`.",
            (
                Slip(DCGM_EXP, "disk-from-dcgm", "Host disk space expected from the GPU exporter",
                     "DCGM reads GPUs; it knows nothing of the host's filesystems."),
                Slip(KSM, "disk-from-ksm", "Host disk space expected from Kubernetes objects",
                     "kube-state-metrics reports what the API server stores, not how full "
                     "a node's disk is."),
            ),
        ),
        Question(
            "Alert on each GPU's power draw and its last Xid code. Which exporter "
            "provides the signal?",
            DCGM_EXP,
            "both are DCGM fields (DCGM_FI_DEV_POWER_USAGE, DCGM_FI_DEV_XID_ERRORS), "
            "exported by dcgm-exporter.",
            (
                Slip(NODE_EXP, "gpu-from-node-exporter",
                     "GPU fields expected from the host exporter",
                     "node_exporter reads the operating system; GPU power and Xid codes "
                     "come through DCGM."),
                Slip(KSM, "gpu-from-ksm", "GPU fields expected from Kubernetes objects",
                     "The API server stores no GPU power readings or Xid codes."),
            ),
        ),
        Question(
            "Alert when pods requesting `nvidia.com/gpu` have been Pending for more than "
            "15 minutes. Which exporter provides the signal?",
            KSM,
            "pod phase and resource requests are API objects: kube-state-metrics exports "
            "`kube_pod_status_phase` and `kube_pod_container_resource_requests`.",
            (
                Slip(DCGM_EXP, "pending-from-dcgm", "Pending pods expected from the GPU exporter",
                     "A pending pod has no GPU yet, so no GPU metric carries it."),
                Slip(NODE_EXP, "pending-from-node-exporter",
                     "Pending pods expected from the host exporter",
                     "A pending pod runs on no node; only the API server knows of it."),
            ),
        ),
        Question(
            "Alert on the InfiniBand adapters' port counters (link downed count, symbol "
            "errors) that each host exposes under /sys/class/infiniband. Which exporter "
            "provides the signal?",
            NODE_EXP,
            "node_exporter's infiniband collector reads those /sys counters on every "
            "node.",
            (
                Slip(DCGM_EXP, "ib-from-dcgm",
                     "Host adapter counters expected from the GPU exporter",
                     "These are the host adapter's counters in /sys, read by the host "
                     "exporter, not GPU fields."),
                Slip(KSM, "ib-from-ksm", "Host adapter counters expected from Kubernetes objects",
                     "The API server stores no port counters."),
            ),
        ),
        Question(
            "For a weekly quota report, count the GPUs each namespace's pods have "
            "requested, whether those pods are running or not. Which exporter provides "
            "the signal?",
            KSM,
            "requests are part of the pod spec the API server stores; kube-state-metrics "
            "exports them per pod and namespace.",
            (
                Slip(DCGM_EXP, "requests-from-dcgm", "Requested GPUs counted from the GPU exporter",
                     "dcgm-exporter sees only GPUs in use by running pods; requests of "
                     "pods not running never reach a GPU."),
                Slip(NODE_EXP, "requests-from-node-exporter",
                     "Requested GPUs counted from the host exporter",
                     "The host knows nothing of pod specs."),
            ),
        ),
    ),
)  # fmt: skip


@register
class GpuAlerting(ConceptTemplate):
    slug = "gpu-alerting"
    title = "Alerting on GPUs: the metric, the rule and the exporter"
    family = "concepts"
    lessons = ("gpu-monitoring-observability",)
    skills = ("gpu-telemetry", "dcgm")
    INTRO = (
        "You run Prometheus and Alertmanager for a Kubernetes cluster of NVIDIA H100 "
        "nodes, scraping dcgm-exporter on every GPU node, node_exporter on every node and "
        "one kube-state-metrics. Answer three questions about alerts that page on idle, "
        "throttled or failing GPUs: which metric an alert reads, what an alert rule "
        "needs, and which exporter provides a signal."
    )
    TOPICS = (SIGNAL, RULE, SOURCE)
