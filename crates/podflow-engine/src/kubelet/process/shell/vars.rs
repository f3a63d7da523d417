//! Shell variables in the order they were first set, each exported or not
//! (`env` prints the exported ones in that order, as `environ` holds them).

/// The shell's variables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Vars {
    list: Vec<(String, String, bool)>,
}

impl Vars {
    /// The value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.list
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, v, _)| v.as_str())
    }

    /// Sets `name` (keeping whether it is exported).
    pub fn set(&mut self, name: &str, value: &str) {
        match self.list.iter_mut().find(|(n, _, _)| n == name) {
            Some(entry) => entry.1 = value.to_string(),
            None => self.list.push((name.to_string(), value.to_string(), false)),
        }
    }

    /// Marks `name` exported (an unset name becomes an empty exported variable).
    pub fn export(&mut self, name: &str) {
        match self.list.iter_mut().find(|(n, _, _)| n == name) {
            Some(entry) => entry.2 = true,
            None => self.list.push((name.to_string(), String::new(), true)),
        }
    }

    /// Removes `name`.
    pub fn unset(&mut self, name: &str) {
        self.list.retain(|(n, _, _)| n != name);
    }

    /// The exported variables, in order.
    pub fn exported(&self) -> impl Iterator<Item = (&str, &str)> {
        self.list
            .iter()
            .filter(|(_, _, e)| *e)
            .map(|(n, v, _)| (n.as_str(), v.as_str()))
    }
}
