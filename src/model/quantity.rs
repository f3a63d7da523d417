//! Resource quantities (`500m`, `128Mi`, `1.5`), parsed as
//! `k8s.io/apimachinery/pkg/api/resource` parses them.

// TEMPORARY (replaced by the validation branch before this lands).
pub struct Parsed(i128);
impl Parsed {
    pub fn milli_value(&self) -> i64 {
        self.0 as i64
    }
    pub fn value(&self) -> i64 {
        ((self.0 + 999) / 1000) as i64
    }
}
pub fn parse(s: &str) -> Result<Parsed, String> {
    let s = s.trim();
    let (num, mult): (&str, f64) = if let Some(n) = s.strip_suffix("Ki") {
        (n, 1024.0)
    } else if let Some(n) = s.strip_suffix("Mi") {
        (n, 1048576.0)
    } else if let Some(n) = s.strip_suffix("Gi") {
        (n, 1073741824.0)
    } else if let Some(n) = s.strip_suffix('m') {
        (n, 0.001)
    } else if let Some(n) = s.strip_suffix('k') {
        (n, 1e3)
    } else if let Some(n) = s.strip_suffix('M') {
        (n, 1e6)
    } else if let Some(n) = s.strip_suffix('G') {
        (n, 1e9)
    } else {
        (s, 1.0)
    };
    let v: f64 = num.parse().map_err(|_| s.to_string())?;
    Ok(Parsed((v * mult * 1000.0).ceil() as i128))
}
