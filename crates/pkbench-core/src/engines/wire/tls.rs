//! TLS as libpq's `sslmode` and the MySQL client's `ssl-mode` ask for it, and what a connection
//! ended up with (recorded in results; never key material).

use crate::Error;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// How hard to insist on TLS, in libpq's terms (MySQL's modes map one to one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TlsMode {
    /// Plaintext only (`disable`, `DISABLED`).
    Disable,
    /// TLS if the server offers it, else plaintext; the certificate is not checked (`prefer`,
    /// `PREFERRED`): the default of both clients.
    Prefer,
    /// TLS or fail; the certificate is not checked unless a CA file is given (`require`,
    /// `REQUIRED`).
    Require,
    /// TLS, the certificate chain checked against the CA, not the host name (`verify-ca`,
    /// `VERIFY_CA`).
    VerifyCa,
    /// TLS, chain and host name checked (`verify-full`, `VERIFY_IDENTITY`).
    VerifyFull,
}

impl TlsMode {
    /// Parses libpq's `sslmode` spelling.
    pub fn parse_pg(value: &str) -> Result<Self, Error> {
        Ok(match value.to_ascii_lowercase().as_str() {
            "disable" => TlsMode::Disable,
            "prefer" => TlsMode::Prefer,
            "require" => TlsMode::Require,
            "verify-ca" => TlsMode::VerifyCa,
            "verify-full" => TlsMode::VerifyFull,
            _ => {
                return Err(Error::InvalidInput(format!(
                    "sslmode={value} is not supported: use disable, prefer, require, verify-ca or verify-full"
                )));
            }
        })
    }

    /// Parses the MySQL client's `ssl-mode` spelling.
    pub fn parse_mysql(value: &str) -> Result<Self, Error> {
        Ok(match value.to_ascii_uppercase().replace('-', "_").as_str() {
            "DISABLED" => TlsMode::Disable,
            "PREFERRED" => TlsMode::Prefer,
            "REQUIRED" => TlsMode::Require,
            "VERIFY_CA" => TlsMode::VerifyCa,
            "VERIFY_IDENTITY" => TlsMode::VerifyFull,
            _ => {
                return Err(Error::InvalidInput(format!(
                    "ssl-mode={value} is not supported: use DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY"
                )));
            }
        })
    }

    /// libpq's spelling.
    pub fn pg_name(self) -> &'static str {
        match self {
            TlsMode::Disable => "disable",
            TlsMode::Prefer => "prefer",
            TlsMode::Require => "require",
            TlsMode::VerifyCa => "verify-ca",
            TlsMode::VerifyFull => "verify-full",
        }
    }

    /// The MySQL client's spelling.
    pub fn mysql_name(self) -> &'static str {
        match self {
            TlsMode::Disable => "DISABLED",
            TlsMode::Prefer => "PREFERRED",
            TlsMode::Require => "REQUIRED",
            TlsMode::VerifyCa => "VERIFY_CA",
            TlsMode::VerifyFull => "VERIFY_IDENTITY",
        }
    }
}

/// What a connection should do about TLS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsSettings {
    /// The mode.
    pub mode: TlsMode,
    /// Trust only the certificates in this PEM file (else the webpki roots).
    pub ca_file: Option<PathBuf>,
}

/// What a connection ended up with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsStatus {
    /// The mode asked for, in the wire's own spelling (`sslmode=prefer`, `ssl-mode=REQUIRED`).
    pub asked: String,
    /// Whether the connection is encrypted.
    pub encrypted: bool,
    /// The protocol version the server reports (`TLSv1.3`), when encrypted.
    pub protocol: Option<String>,
    /// Why it is not encrypted, when it is not.
    pub note: Option<String>,
}

impl TlsStatus {
    /// A connection through a Unix socket, which TLS does not apply to.
    pub fn unix_socket() -> Self {
        TlsStatus {
            asked: "none".into(),
            encrypted: false,
            protocol: None,
            note: Some("Unix socket of the managed server: local, TLS does not apply".into()),
        }
    }

    /// Adds `connection_encrypted`, `connection_tls_version`, `connection_tls_mode` and, when it
    /// is not encrypted, `connection_tls_note` to a run's engine settings.
    pub fn record(&self, out: &mut BTreeMap<String, String>) {
        out.insert("connection_encrypted".into(), if self.encrypted { "yes" } else { "no" }.into());
        out.insert("connection_tls_mode".into(), self.asked.clone());
        if let Some(p) = &self.protocol {
            out.insert("connection_tls_version".into(), p.clone());
        }
        if let Some(n) = &self.note {
            out.insert("connection_tls_note".into(), n.clone());
        }
    }

    /// One line for a report: whether and how the connection is encrypted.
    pub fn describe(&self) -> String {
        match (&self.protocol, &self.note) {
            (protocol, _) if self.encrypted => {
                format!("connection encrypted with {} ({})", protocol.as_deref().unwrap_or("TLS"), self.asked)
            }
            // A note names the mode it was asked for; the line names it once.
            (_, Some(note)) => {
                let note = note.strip_prefix(&format!("{}: ", self.asked)).unwrap_or(note);
                format!("connection not encrypted ({}): {note}", self.asked)
            }
            (_, None) => format!("connection not encrypted ({})", self.asked),
        }
    }

    /// The note for a `prefer` connection the server answered without TLS.
    pub fn fell_back_note(asked: &str) -> String {
        format!("{asked}: the server offered no TLS, so the connection fell back to plaintext")
    }
}

/// rustls for PostgreSQL's wire: webpki roots or the CA file, and a verifier per mode.
#[cfg(feature = "postgres")]
pub(crate) mod rustls_config {
    use super::{TlsMode, TlsSettings};
    use crate::Error;
    use rustls::client::WebPkiServerVerifier;
    use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
    use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
    use std::sync::Arc;

    /// The client configuration for `tls`.
    pub fn client_config(tls: &TlsSettings) -> Result<ClientConfig, Error> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut roots = RootCertStore::empty();
        match &tls.ca_file {
            Some(path) => {
                let pem = crate::util::input::read_bytes(path, crate::util::input::InputKind::Certificates)?;
                let certs: Vec<CertificateDer<'static>> =
                    CertificateDer::pem_slice_iter(&pem).collect::<Result<_, _>>().map_err(|e| {
                        Error::InvalidInput(format!("{}: not a PEM certificate file ({e})", path.display()))
                    })?;
                let (added, _) = roots.add_parsable_certificates(certs);
                if added == 0 {
                    return Err(Error::InvalidInput(format!(
                        "{} holds no usable CA certificate: give the PEM file of the CA that signed the server's certificate",
                        path.display()
                    )));
                }
            }
            None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
        }
        let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
            .build()
            .map_err(|e| Error::Internal(format!("could not set up certificate checks: {e}")))?;
        let check = match tls.mode {
            TlsMode::VerifyFull => Check::Full,
            TlsMode::VerifyCa => Check::ChainOnly,
            // libpq: `require` with a root certificate file checks the chain, as verify-ca.
            TlsMode::Require if tls.ca_file.is_some() => Check::ChainOnly,
            _ => Check::None,
        };
        let config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| Error::Internal(format!("could not set up TLS: {e}")))?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Verifier { webpki, check }))
            .with_no_client_auth();
        Ok(config)
    }

    #[derive(Debug, Clone, Copy)]
    enum Check {
        None,
        ChainOnly,
        Full,
    }

    /// The webpki verifier, relaxed as the mode allows; handshake signatures are always checked.
    #[derive(Debug)]
    struct Verifier {
        webpki: Arc<WebPkiServerVerifier>,
        check: Check,
    }

    impl ServerCertVerifier for Verifier {
        fn verify_server_cert(
            &self,
            end_entity: &CertificateDer<'_>,
            intermediates: &[CertificateDer<'_>],
            server_name: &ServerName<'_>,
            ocsp: &[u8],
            now: UnixTime,
        ) -> Result<ServerCertVerified, rustls::Error> {
            let result = self.webpki.verify_server_cert(end_entity, intermediates, server_name, ocsp, now);
            match (self.check, result) {
                (Check::None, _) => Ok(ServerCertVerified::assertion()),
                (
                    Check::ChainOnly,
                    Err(rustls::Error::InvalidCertificate(
                        rustls::CertificateError::NotValidForName
                        | rustls::CertificateError::NotValidForNameContext { .. },
                    )),
                ) => Ok(ServerCertVerified::assertion()),
                (_, result) => result,
            }
        }

        fn verify_tls12_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            self.webpki.verify_tls12_signature(message, cert, dss)
        }

        fn verify_tls13_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            self.webpki.verify_tls13_signature(message, cert, dss)
        }

        fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
            self.webpki.supported_verify_schemes()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_in_each_clients_spelling() {
        assert_eq!(TlsMode::parse_pg("verify-full").unwrap(), TlsMode::VerifyFull);
        assert_eq!(TlsMode::parse_mysql("verify_identity").unwrap(), TlsMode::VerifyFull);
        assert_eq!(TlsMode::parse_mysql("VERIFY-CA").unwrap(), TlsMode::VerifyCa);
        let e = TlsMode::parse_pg("allow").unwrap_err().to_string();
        assert!(e.contains("use disable, prefer, require"), "{e}");
        for m in [TlsMode::Disable, TlsMode::Prefer, TlsMode::Require, TlsMode::VerifyCa, TlsMode::VerifyFull] {
            assert_eq!(TlsMode::parse_pg(m.pg_name()).unwrap(), m);
            assert_eq!(TlsMode::parse_mysql(m.mysql_name()).unwrap(), m);
        }
    }

    #[test]
    fn a_fallback_names_the_mode_once() {
        let asked = "sslmode=prefer".to_string();
        let note = Some(TlsStatus::fell_back_note(&asked));
        let status = TlsStatus { asked, encrypted: false, protocol: None, note };
        assert_eq!(
            status.describe(),
            "connection not encrypted (sslmode=prefer): the server offered no TLS, so the connection fell back to plaintext"
        );
    }
}
