//! The certificates `podflow serve` makes at start, as `kubeadm init` makes a
//! cluster's (`cmd/kubeadm/app/phases/certs`): a cluster CA named
//! `kubernetes`, a serving certificate for `127.0.0.1` and `localhost`
//! signed by it, and client certificates whose subject's CN is the user and
//! whose O entries are its groups — what the API server's x509 authenticator
//! reads (`staging/src/k8s.io/apiserver/pkg/authentication/request/x509/x509.go`,
//! `CommonNameUserConversion`). And the TLS set-up that serves them.

use std::sync::Arc;

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DistinguishedName, DnType,
    ExtendedKeyUsagePurpose, IsCa, KeyPair, KeyUsagePurpose,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::server::WebPkiClientVerifier;

use crate::ServeError;

/// A certificate and its private key, in PEM.
#[derive(Debug, Clone)]
pub struct Pem {
    pub certificate: String,
    pub key: String,
}

/// The cluster's CA and the server's certificate.
pub struct Pki {
    ca: CertifiedIssuer<'static, KeyPair>,
    server: (CertificateDer<'static>, PrivatePkcs8KeyDer<'static>),
}

fn failed(what: &str) -> impl Fn(rcgen::Error) -> ServeError + '_ {
    move |e| ServeError::Certificates(format!("{what}: {e}"))
}

impl Pki {
    /// A fresh CA and a serving certificate for `hosts` (IP addresses or names).
    pub fn new(hosts: &[String]) -> Result<Pki, ServeError> {
        let mut params = CertificateParams::default();
        params.distinguished_name = DistinguishedName::new();
        params
            .distinguished_name
            .push(DnType::CommonName, "kubernetes");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
            KeyUsagePurpose::KeyCertSign,
        ];
        let ca_key = KeyPair::generate().map_err(failed("the CA's key"))?;
        let ca = CertifiedIssuer::self_signed(params, ca_key).map_err(failed("the CA"))?;

        let mut params =
            CertificateParams::new(hosts.to_vec()).map_err(failed("the server's names"))?;
        params
            .distinguished_name
            .push(DnType::CommonName, "kube-apiserver");
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let key = KeyPair::generate().map_err(failed("the server's key"))?;
        let certificate = params
            .signed_by(&key, &ca)
            .map_err(failed("the server's certificate"))?;
        Ok(Pki {
            server: (
                certificate.der().clone(),
                PrivatePkcs8KeyDer::from(key.serialize_der()),
            ),
            ca,
        })
    }

    /// The CA certificate, in PEM (the kubeconfig's `certificate-authority-data`).
    pub fn ca_pem(&self) -> String {
        self.ca.pem()
    }

    /// A client certificate for `user` in `groups`, signed by the CA.
    pub fn client(&self, user: &str, groups: &[&str]) -> Result<Pem, ServeError> {
        let mut params = CertificateParams::default();
        params.distinguished_name = DistinguishedName::new();
        for group in groups {
            params
                .distinguished_name
                .push(DnType::OrganizationName, *group);
        }
        params.distinguished_name.push(DnType::CommonName, user);
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        let key = KeyPair::generate().map_err(failed("a client key"))?;
        let certificate = params
            .signed_by(&key, &self.ca)
            .map_err(failed("a client certificate"))?;
        Ok(Pem {
            certificate: certificate.pem(),
            key: key.serialize_pem(),
        })
    }

    /// The server's TLS set-up: its certificate, client certificates
    /// verified against the CA when sent (bearer tokens come without one),
    /// and HTTP/2 offered before HTTP/1.1, as kube-apiserver does.
    pub fn server_config(&self) -> Result<Arc<rustls::ServerConfig>, ServeError> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut roots = rustls::RootCertStore::empty();
        roots
            .add(self.ca.der().clone())
            .map_err(|e| ServeError::Certificates(format!("the CA: {e}")))?;
        let verifier =
            WebPkiClientVerifier::builder_with_provider(Arc::new(roots), Arc::clone(&provider))
                .allow_unauthenticated()
                .build()
                .map_err(|e| ServeError::Certificates(format!("the client verifier: {e}")))?;
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| ServeError::Certificates(format!("TLS versions: {e}")))?
            .with_client_cert_verifier(verifier)
            .with_single_cert(
                vec![self.server.0.clone()],
                PrivateKeyDer::Pkcs8(self.server.1.clone_key()),
            )
            .map_err(|e| ServeError::Certificates(format!("the server's certificate: {e}")))?;
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(Arc::new(config))
    }
}

/// The user and groups a verified client certificate names: its subject's
/// CN, and each O (`x509.CommonNameUserConversion`).
pub fn certificate_user(der: &[u8]) -> Option<(String, Vec<String>)> {
    let (_, certificate) = x509_parser::parse_x509_certificate(der).ok()?;
    let subject = certificate.subject();
    let user = subject
        .iter_common_name()
        .next()
        .and_then(|cn| cn.as_str().ok())?
        .to_owned();
    let groups = subject
        .iter_organization()
        .filter_map(|o| o.as_str().ok().map(str::to_owned))
        .collect();
    Some((user, groups))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_certificate_names_its_user_and_groups() {
        let pki = Pki::new(&["127.0.0.1".into(), "localhost".into()]).unwrap();
        let pem = pki
            .client("kubernetes-admin", &["kubeadm:cluster-admins"])
            .unwrap();
        let der = rustls_pemfile_der(&pem.certificate);
        assert_eq!(
            certificate_user(&der),
            Some((
                "kubernetes-admin".to_owned(),
                vec!["kubeadm:cluster-admins".to_owned()]
            ))
        );
        assert!(pki.server_config().is_ok());
    }

    /// The DER inside one PEM block.
    fn rustls_pemfile_der(pem: &str) -> Vec<u8> {
        let (_, block) = x509_parser::pem::parse_x509_pem(pem.as_bytes()).unwrap();
        block.contents
    }
}
