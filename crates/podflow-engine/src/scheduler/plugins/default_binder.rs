//! `DefaultBinder` (`pkg/scheduler/framework/plugins/defaultbinder/default_binder.go`):
//! binds every pod by creating its `binding` subresource, a `v1.Binding` whose
//! target is the chosen node.

use k8s_openapi::api::core::v1::Pod;

use crate::scheduler::framework::{BindAction, BindPlugin};

pub struct DefaultBinder;

impl BindPlugin for DefaultBinder {
    fn name(&self) -> &'static str {
        "DefaultBinder"
    }

    fn bind(&self, _pod: &Pod, node: &str) -> BindAction {
        BindAction::Binding {
            node: node.to_owned(),
        }
    }
}
