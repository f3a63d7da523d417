//! Checks on the tables themselves: every message a kind reaches has unique
//! field numbers and JSON names, and each kind's message is that kind.

use std::collections::HashSet;

use super::super::kinds::{KINDS, root};
use super::super::schema::{Absent, Message, Shape, Ty};
use super::super::tables::meta;

/// Every message reachable from `message`, each once.
fn reach(message: &'static Message, seen: &mut Vec<&'static Message>) {
    if seen.iter().any(|known| std::ptr::eq(*known, message)) {
        return;
    }
    seen.push(message);
    for field in message.fields {
        if let Ty::Message(inner) = field.ty {
            reach(inner, seen);
        }
    }
}

/// The JSON names `message` puts in its object, inline fields included.
fn json_names(message: &'static Message) -> Vec<&'static str> {
    let mut names = Vec::new();
    for field in message.fields {
        match (field.shape, field.ty) {
            (Shape::Inline, Ty::Message(inner)) => names.extend(json_names(inner)),
            (Shape::Inline, _) => panic!("{}: an inline field that is not a message", message.name),
            _ => names.push(field.json),
        }
    }
    names
}

#[test]
fn field_numbers_and_json_names_are_unique() {
    let mut seen = Vec::new();
    for (_, _, message) in KINDS {
        reach(message, &mut seen);
    }
    reach(&meta::DELETE_OPTIONS, &mut seen);
    assert!(seen.len() > 200, "{} messages", seen.len());
    for message in &seen {
        let mut tags = HashSet::new();
        for field in message.fields {
            assert!(
                field.tag > 0 && tags.insert(field.tag),
                "{} repeats field {}",
                message.name,
                field.tag
            );
            assert_eq!(
                field.json.is_empty(),
                field.shape == Shape::Inline,
                "{}",
                message.name
            );
            if field.omit_zero && field.shape == Shape::One {
                assert!(
                    !matches!(field.ty, Ty::Message(_)) && field.absent == Absent::Omit,
                    "{}.{}: only scalars and times are left out when zero",
                    message.name,
                    field.json
                );
            }
        }
        let names = json_names(message);
        let unique: HashSet<_> = names.iter().collect();
        assert_eq!(
            unique.len(),
            names.len(),
            "{} repeats a JSON name",
            message.name
        );
    }
}

#[test]
fn each_kind_names_its_own_message() {
    for (api_version, kind, message) in KINDS {
        let group = match api_version.split_once('/') {
            None => "core",
            Some((group, _)) => group.split('.').next().unwrap(),
        };
        let version = api_version.rsplit('/').next().unwrap();
        assert_eq!(message.name, format!("k8s.io.api.{group}.{version}.{kind}"));
        assert!(std::ptr::eq(root(api_version, kind).unwrap(), *message));
    }
    assert!(root("v1", "Node").is_none());
    assert!(root("apps/v2", "Deployment").is_none());
}
