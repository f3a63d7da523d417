//! Reads manifests, cluster files and the `Simulation` object into typed values,
//! with file, line, column and field path for every error.
