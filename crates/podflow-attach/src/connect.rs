//! A client from a kubeconfig, as kubectl reads it: `--kubeconfig FILE`,
//! else `KUBECONFIG` (paths merged), else `~/.kube/config`; `--context`
//! or the current context; kube-rs's auth (client certificates, tokens,
//! exec plugins, auth providers).

use std::path::Path;

use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};

/// A client of the cluster `context` (or the current context) names, and
/// that context's namespace (`default` when it names none).
pub async fn connect(
    kubeconfig: Option<&Path>,
    context: Option<&str>,
) -> Result<(Client, String), String> {
    let options = KubeConfigOptions {
        context: context.map(str::to_owned),
        ..KubeConfigOptions::default()
    };
    let file = match kubeconfig {
        Some(path) => Kubeconfig::read_from(path)
            .map_err(|e| format!("error: --kubeconfig {}: {e}", path.display()))?,
        None => Kubeconfig::read().map_err(|e| format!("error: {e}"))?,
    };
    // kubectl's words for a context the kubeconfig lacks (`kubectl
    // --context nope get pods`: client-go's `ErrConfigurationInvalid`,
    // `staging/src/k8s.io/client-go/tools/clientcmd/validation.go`).
    if let Some(name) = context
        && !file.contexts.iter().any(|c| c.name == name)
    {
        return Err(format!(
            "Error in configuration: context was not found for specified context: {name}"
        ));
    }
    let config = Config::from_custom_kubeconfig(file, &options)
        .await
        .map_err(|e| format!("error: {e}"))?;
    let namespace = config.default_namespace.clone();
    let client = Client::try_from(config).map_err(|e| format!("error: {e}"))?;
    Ok((client, namespace))
}
