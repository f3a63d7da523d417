//! `podflow gen-cluster --nodes N --zones Z`: writes a generated cluster file
//! (for scale demonstrations) to standard output or `-o FILE`.

use clap::Args;

use podflow_scenario::generate::{NodeShape, generate};

/// `podflow gen-cluster`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct GenClusterArgs {
    /// How many worker nodes (besides the control plane).
    #[arg(long, default_value_t = 1_000)]
    pub nodes: usize,
    /// How many zones the workers are spread over (round-robin).
    #[arg(long, default_value_t = 10)]
    pub zones: usize,
    /// Each worker's CPU capacity.
    #[arg(long, default_value = "32")]
    pub cpu: String,
    /// Each worker's memory capacity.
    #[arg(long, default_value = "128Gi")]
    pub memory: String,
    /// Each worker's Pod capacity.
    #[arg(long, default_value_t = 110)]
    pub pods: u32,
    /// Write to this file instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<String>,
}

/// Runs `podflow gen-cluster`.
pub fn run(args: &GenClusterArgs) -> Result<(), String> {
    let shape = NodeShape {
        cpu: args.cpu.clone(),
        memory: args.memory.clone(),
        pods: args.pods,
    };
    let text = generate(args.nodes, args.zones, &shape)?;
    if let Some(path) = &args.output {
        return std::fs::write(path, text).map_err(|e| format!("error: writing {path}: {e}"));
    }
    print!("{text}");
    Ok(())
}
