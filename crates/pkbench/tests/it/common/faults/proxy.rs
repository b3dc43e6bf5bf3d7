//! A loopback TCP proxy in front of a test's server: it forwards every connection (two copy
//! threads each) and cuts the open ones on demand, as a dropped network link would; new
//! connections are forwarded again afterwards.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// A running proxy on 127.0.0.1; it stops on drop.
pub struct CutProxy {
    port: u16,
    open: Arc<Mutex<Vec<TcpStream>>>,
    bytes_up: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
}

impl CutProxy {
    /// Listens on a free loopback port and forwards each connection to `127.0.0.1:target`.
    pub fn start(target: u16) -> Self {
        let listener = TcpListener::bind(("127.0.0.1", 0)).expect("bind the proxy on 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        let open = Arc::new(Mutex::new(Vec::new()));
        let bytes_up = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (o, b, s) = (Arc::clone(&open), Arc::clone(&bytes_up), Arc::clone(&stop));
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if s.load(Ordering::SeqCst) {
                    break;
                }
                let (Ok(client), Ok(server)) = (client, TcpStream::connect(("127.0.0.1", target))) else { continue };
                let mut open = o.lock().unwrap();
                open.push(client.try_clone().unwrap());
                open.push(server.try_clone().unwrap());
                pipe(client.try_clone().unwrap(), server.try_clone().unwrap(), Some(Arc::clone(&b)));
                pipe(server, client, None);
            }
        });
        CutProxy { port, open, bytes_up, stop }
    }

    /// The proxy's port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Bytes sent from clients to the server so far.
    pub fn bytes_up(&self) -> u64 {
        self.bytes_up.load(Ordering::SeqCst)
    }

    /// Cuts every open connection, both ways.
    pub fn cut(&self) {
        for stream in self.open.lock().unwrap().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}

impl Drop for CutProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.cut();
        // Wakes the accepting thread so it sees the stop.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// Copies `from` to `to` on a thread of its own until either side closes, counting in `count`.
fn pipe(mut from: TcpStream, mut to: TcpStream, count: Option<Arc<AtomicU64>>) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if to.write_all(&buf[..n]).is_err() {
                break;
            }
            if let Some(c) = &count {
                c.fetch_add(n as u64, Ordering::SeqCst);
            }
        }
        let _ = from.shutdown(Shutdown::Both);
        let _ = to.shutdown(Shutdown::Both);
    });
}
