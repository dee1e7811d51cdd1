"""The data layer's homes, a bank of platform-layers (problems/templates/concepts/
platform_layers.py): which store suits each kind of data an AI platform keeps, chosen by
how it is read. Kept apart only to keep each module short."""

from __future__ import annotations

from problems.templates.concepts._bank import Question, Slip, Topic

REGISTRY, OBJECT, VECTOR, DATABASE, LOG = (
    "model-registry", "object-storage", "vector-index", "database", "event-log",
)  # fmt: skip
HOME = Topic(
    part="home",
    label="Store for this kind of data (the data layer)",
    clue=(
        "Each kind of data has a natural home, chosen by how it is read: versioned "
        "artifacts by name and version, large files by key, vectors by similarity, "
        "small records by key with updates, events in order and replayed."
    ),
    choices=(REGISTRY, OBJECT, VECTOR, DATABASE, LOG),
    questions=(
        Question(
            "Fine-tuned weights, each with its version, evaluation scores and the data it "
            "was trained on, so a deployment can name the exact one it serves.",
            REGISTRY,
            "a model registry keeps versioned artifacts with their metadata and lineage.",
            (
                Slip(OBJECT, "weights-in-bare-bucket", "Versioned weights kept as bare files",
                     "A bucket can hold the bytes, but naming a version with its scores and "
                     "lineage is what a registry adds."),
                Slip(VECTOR, "weights-in-vector-index", "Weights put in a vector index",
                     "A vector index answers similarity queries; weights are read whole by "
                     "version."),
                Slip(DATABASE, "weights-in-database", "Weights put in a database",
                     "Gigabytes of weights do not belong in rows; their metadata may."),
                Slip(LOG, "weights-in-event-log", "Weights put in an event log",
                     "An event log keeps a stream of small records in order, not large "
                     "versioned files."),
            ),
        ),
        Question(
            "Forty thousand PDFs and HTML pages that a retrieval pipeline chunks and "
            "embeds, re-read whenever the pipeline changes.",
            OBJECT,
            "large source files read by key belong in object storage.",
            (
                Slip(REGISTRY, "documents-in-registry", "Documents put in a model registry",
                     "A model registry versions models, not a corpus of source files."),
                Slip(VECTOR, "documents-as-vectors", "Source documents kept only as vectors",
                     "Vectors are derived from the documents; the originals must be kept to "
                     "re-chunk and re-embed them."),
                Slip(DATABASE, "documents-in-database", "Documents put in a database",
                     "Large files in rows make a database slow and costly; keep them as "
                     "objects and their metadata in rows."),
                Slip(LOG, "documents-in-event-log", "Documents put in an event log",
                     "A log is read in order and expires; a corpus is read by key, again "
                     "and again."),
            ),
        ),
        Question(
            "Embeddings of every chunk, queried with a question's embedding for the ten "
            "nearest chunks.",
            VECTOR,
            "nearest-neighbour search over embeddings is what a vector index is for.",
            (
                Slip(REGISTRY, "vectors-in-registry", "Embeddings put in a model registry",
                     "The embedding model is a registry artifact; its outputs are data "
                     "searched by similarity."),
                Slip(OBJECT, "vectors-in-bucket", "Embeddings kept as files",
                     "Files can hold vectors, but a query would scan them all; an index "
                     "finds neighbours fast."),
                Slip(DATABASE, "vectors-without-index", "Embeddings in plain rows without an index",
                     "Plain rows answer exact lookups; similarity search needs a vector "
                     "index (an extension of the database counts as one)."),
                Slip(LOG, "vectors-in-event-log", "Embeddings put in an event log",
                     "A log replays records in order; it cannot find nearest neighbours."),
            ),
        ),
        Question(
            "Each user's conversations, settings and remaining token quota, read and "
            "updated on every request.",
            DATABASE,
            "small records read and updated by key, consistently, belong in a database.",
            (
                Slip(REGISTRY, "state-in-registry", "Application state put in a registry",
                     "A registry versions artifacts; per-user records change every "
                     "request."),
                Slip(OBJECT, "state-in-bucket", "Application state kept as files",
                     "Object stores are poor at small, frequent, consistent updates."),
                Slip(VECTOR, "state-in-vector-index", "Application state put in a vector index",
                     "A quota is looked up by user, not by similarity."),
                Slip(LOG, "state-in-event-log", "Application state kept only in an event log",
                     "Replaying a log to find a user's current quota on every request is "
                     "slow; keep the current state in a database."),
            ),
        ),
        Question(
            "Every request's token counts, latency and outcome, consumed by billing, by "
            "the evaluation pipeline and replayed when a consumer is fixed.",
            LOG,
            "an ordered, replayable stream that several consumers read is an event log.",
            (
                Slip(REGISTRY, "events-in-registry", "Events put in a model registry",
                     "A registry versions artifacts; it is not a stream of records."),
                Slip(OBJECT, "events-as-files-only", "Events written straight to files",
                     "Files can archive events, but several consumers reading in order and "
                     "replaying is what a log gives."),
                Slip(VECTOR, "events-in-vector-index", "Events put in a vector index",
                     "Usage events are read in order by consumers, not by similarity."),
                Slip(DATABASE, "events-in-database", "Events kept only as database rows",
                     "Rows can record them, but fan-out to several consumers with replay is "
                     "an event log's job."),
            ),
        ),
    ),
)  # fmt: skip
