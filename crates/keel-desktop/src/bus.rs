//! The accessibility bus: finding it, connecting to it, running calls on it from blocking code,
//! and reading zbus errors as [`DesktopError`]s.
//!
//! zbus runs with its async-io backend and its own internal executor thread, which reads the
//! socket; the blocking trait methods drive each call with `async_io::block_on` on the caller's
//! thread. That needs no tokio runtime and no thread of keel's own.

use std::time::Duration;

use keel_computer::desktop::DesktopError;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _};
use x11rb::rust_connection::RustConnection;

/// Finds the accessibility bus address the way at-spi2-atk does (so keel reads the same bus
/// the apps write to): a configured address first, then `org.a11y.Bus.GetAddress` on the
/// session bus, then the `AT_SPI_BUS` property that at-spi-bus-launcher sets on the X root
/// window.
pub(crate) fn find_address(
    configured: Option<&str>,
    session_bus: Option<&str>,
    x: &RustConnection,
    root: u32,
    timeout: Duration,
) -> Result<String, DesktopError> {
    if let Some(address) = configured {
        return Ok(address.to_string());
    }
    let mut session_error = None;
    if let Some(session) = session_bus {
        match address_from_session_bus(session, timeout) {
            Ok(address) => return Ok(address),
            Err(e) => session_error = Some(e),
        }
    }
    if let Some(address) = address_from_x_root(x, root) {
        return Ok(address);
    }
    let why = match (session_bus, session_error) {
        (None, _) => "DBUS_SESSION_BUS_ADDRESS is not set".to_string(),
        (Some(_), Some(e)) => format!("the session bus did not give its address ({e})"),
        (Some(_), None) => "the session bus did not give its address".to_string(),
    };
    Err(DesktopError::Unavailable(format!(
        "no AT-SPI accessibility bus: {why}, and the X root window has no AT_SPI_BUS property. \
         Start a session bus (dbus-run-session) and the AT-SPI bus (at-spi-bus-launcher \
         --launch-immediately, from at-spi2-core), and run apps with accessibility on \
         (GTK: GTK_MODULES=gail:atk-bridge)"
    )))
}

fn address_from_session_bus(session: &str, timeout: Duration) -> Result<String, String> {
    block_on_timeout(timeout, async {
        let conn = zbus::connection::Builder::address(session)?
            .method_timeout(timeout)
            .build()
            .await?;
        let bus = atspi_proxies::bus::BusProxy::builder(&conn)
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build()
            .await?;
        bus.get_address().await
    })
    .map_err(|e| e.to_string())?
    .map_err(|e| e.to_string())
}

fn address_from_x_root(x: &RustConnection, root: u32) -> Option<String> {
    let atom = x.intern_atom(true, b"AT_SPI_BUS").ok()?.reply().ok()?.atom;
    if atom == 0 {
        return None;
    }
    let reply = x
        .get_property(false, root, atom, AtomEnum::STRING, 0, 4096)
        .ok()?
        .reply()
        .ok()?;
    let value = String::from_utf8(reply.value).ok()?;
    (!value.is_empty()).then_some(value)
}

/// Connects to the accessibility bus. Every method call on it times out after `timeout`.
pub(crate) fn connect(address: &str, timeout: Duration) -> Result<zbus::Connection, DesktopError> {
    let unavailable = |e: String| {
        DesktopError::Unavailable(format!(
            "cannot connect to the AT-SPI bus at {address}: {e}"
        ))
    };
    block_on_timeout(timeout, async {
        zbus::connection::Builder::address(address)?
            .method_timeout(timeout)
            .build()
            .await
    })
    .map_err(|e| unavailable(e.to_string()))?
    .map_err(|e| unavailable(e.to_string()))
}

/// Timed out waiting for the bus.
#[derive(Debug)]
pub(crate) struct TimedOut(pub Duration);

impl std::fmt::Display for TimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no answer within {} ms", self.0.as_millis())
    }
}

/// Runs `future` to completion on this thread, giving up after `timeout`. The per-call method
/// timeout already bounds each D-Bus call; this bounds a whole batch of them (a tree walk).
pub(crate) fn block_on_timeout<F: std::future::Future>(
    timeout: Duration,
    future: F,
) -> Result<F::Output, TimedOut> {
    async_io::block_on(futures_lite::future::or(
        async { Ok(future.await) },
        async {
            async_io::Timer::after(timeout).await;
            Err(TimedOut(timeout))
        },
    ))
}

/// D-Bus errors that mean the object or its app no longer exists. (`NoReply` is not one: a
/// hung app is still there.)
const GONE_ERRORS: &[&str] = &[
    "org.freedesktop.DBus.Error.ServiceUnknown",
    "org.freedesktop.DBus.Error.NameHasNoOwner",
    "org.freedesktop.DBus.Error.UnknownObject",
    "org.freedesktop.DBus.Error.UnknownMethod",
    "org.freedesktop.DBus.Error.UnknownInterface",
];

/// Whether the error says the remote object is gone (the app quit, the window was destroyed).
pub(crate) fn is_gone(error: &zbus::Error) -> bool {
    match error {
        zbus::Error::MethodError(name, _, _) => GONE_ERRORS.contains(&name.as_str()),
        zbus::Error::FDO(fdo) => matches!(
            **fdo,
            zbus::fdo::Error::ServiceUnknown(_)
                | zbus::fdo::Error::NameHasNoOwner(_)
                | zbus::fdo::Error::UnknownObject(_)
                | zbus::fdo::Error::UnknownMethod(_)
                | zbus::fdo::Error::UnknownInterface(_)
        ),
        _ => false,
    }
}

/// Whether the error says the bus itself is unreachable.
fn is_connection_lost(error: &zbus::Error) -> bool {
    matches!(
        error,
        zbus::Error::InputOutput(_) | zbus::Error::Handshake(_)
    )
}

/// Reads a zbus error about `what` as a [`DesktopError`].
pub(crate) fn desktop_error(what: &str, error: &zbus::Error) -> DesktopError {
    if is_gone(error) {
        DesktopError::Gone(format!("{what}: {error}"))
    } else if is_connection_lost(error) {
        DesktopError::Unavailable(format!(
            "the AT-SPI bus connection failed ({error}); is at-spi-bus-launcher still running?"
        ))
    } else {
        DesktopError::Other(format!("{what}: {error}"))
    }
}

/// A timeout over a batch of calls, as a [`DesktopError`].
pub(crate) fn timed_out(what: &str, t: TimedOut) -> DesktopError {
    DesktopError::Other(format!("{what}: {t}"))
}
