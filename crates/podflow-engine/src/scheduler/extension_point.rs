//! The scheduling framework's extension points, in the order upstream's
//! framework visits them (`getExtensionPoints`,
//! `pkg/scheduler/framework/runtime/framework.go`): each one's key under a
//! profile's `plugins` and the Go interface kube-scheduler's errors name.

/// One extension point of the scheduling framework.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtensionPoint {
    PreFilter,
    Filter,
    PostFilter,
    Reserve,
    PreScore,
    Score,
    PreBind,
    Bind,
    PostBind,
    Permit,
    PreEnqueue,
    QueueSort,
}

impl ExtensionPoint {
    /// Every extension point, in `getExtensionPoints` order.
    pub const ALL: [ExtensionPoint; 12] = [
        ExtensionPoint::PreFilter,
        ExtensionPoint::Filter,
        ExtensionPoint::PostFilter,
        ExtensionPoint::Reserve,
        ExtensionPoint::PreScore,
        ExtensionPoint::Score,
        ExtensionPoint::PreBind,
        ExtensionPoint::Bind,
        ExtensionPoint::PostBind,
        ExtensionPoint::Permit,
        ExtensionPoint::PreEnqueue,
        ExtensionPoint::QueueSort,
    ];

    /// The field under a profile's `plugins`.
    pub fn key(self) -> &'static str {
        match self {
            ExtensionPoint::PreFilter => "preFilter",
            ExtensionPoint::Filter => "filter",
            ExtensionPoint::PostFilter => "postFilter",
            ExtensionPoint::Reserve => "reserve",
            ExtensionPoint::PreScore => "preScore",
            ExtensionPoint::Score => "score",
            ExtensionPoint::PreBind => "preBind",
            ExtensionPoint::Bind => "bind",
            ExtensionPoint::PostBind => "postBind",
            ExtensionPoint::Permit => "permit",
            ExtensionPoint::PreEnqueue => "preEnqueue",
            ExtensionPoint::QueueSort => "queueSort",
        }
    }

    /// The Go interface's name, as errors print it (`FilterPlugin`).
    pub fn interface(self) -> String {
        let key = self.key();
        let mut name = key[..1].to_uppercase();
        name.push_str(&key[1..]);
        name + "Plugin"
    }
}
