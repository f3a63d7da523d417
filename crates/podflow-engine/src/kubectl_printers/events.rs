//! `kubectl get events`: `printEvent` of `pkg/printers/internalversion/printers.go`,
//! the last time seen and the object as `kind/name`.

use std::sync::Arc;

use super::{age, header};
use crate::clock::SimTime;
use podflow_model::Object;

/// The header, then one row per Event.
pub fn rows(objects: &[Arc<Object>], now: SimTime) -> Vec<Vec<String>> {
    let mut rows = vec![header(&[
        "LAST SEEN",
        "TYPE",
        "REASON",
        "OBJECT",
        "MESSAGE",
    ])];
    rows.extend(objects.iter().filter_map(|o| match &**o {
        Object::Event(e) => Some(vec![
            age(
                e.last_timestamp.as_ref().or(e.first_timestamp.as_ref()),
                now,
            ),
            e.type_.clone().unwrap_or_default(),
            e.reason.clone().unwrap_or_default(),
            format!(
                "{}/{}",
                e.involved_object
                    .kind
                    .as_deref()
                    .unwrap_or_default()
                    .to_lowercase(),
                e.involved_object.name.as_deref().unwrap_or_default()
            ),
            e.message.clone().unwrap_or_default(),
        ]),
        _ => None,
    }));
    rows
}
