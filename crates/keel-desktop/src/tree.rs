//! Reading the AT-SPI tree: the registry's applications, an app's top-level windows, and one
//! window's subtree.
//!
//! Every proxy is built uncached: zbus's default property cache subscribes to change signals
//! and fills itself with `GetAll` on first use, which for a one-off read of thousands of
//! objects costs more than the read, and would serve stale names later.
//!
//! The subtree walk goes level by level and asks for a whole level at once, so a snapshot costs
//! about three round trips per level of depth instead of several per element.

use atspi_common::{CoordType, RelationType, Role, State, StateSet};
use atspi_proxies::accessible::AccessibleProxy;
use atspi_proxies::component::ComponentProxy;
use atspi_proxies::text::TextProxy;
use futures_lite::future::try_zip;

use crate::roles::{self, Facts};

const REGISTRY_BUS: &str = "org.a11y.atspi.Registry";
const ROOT_PATH: &str = "/org/a11y/atspi/accessible/root";
const NULL_PATH: &str = "/org/a11y/atspi/null";

/// How many objects are asked about at once. The bus allows far more pending replies; this
/// keeps one app's main loop from holding thousands of our requests at a time.
const BATCH: usize = 256;

/// Most children of a list or table (an object with MANAGES_DESCENDANTS) the walk reads; a
/// bigger one is read without its children.
const MAX_MANAGED_CHILDREN: i32 = 500;

/// One AT-SPI object: its owner's unique bus name and its path. Its key is the two joined
/// (`:1.23/org/a11y/atspi/accessible/42`): bus names never contain `/` and paths start with it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ObjRef {
    pub bus: String,
    pub path: String,
}

impl ObjRef {
    pub(crate) fn key(&self) -> String {
        format!("{}{}", self.bus, self.path)
    }

    pub(crate) fn parse(key: &str) -> Option<ObjRef> {
        let slash = key.find('/')?;
        let (bus, path) = key.split_at(slash);
        (!bus.is_empty()).then(|| ObjRef {
            bus: bus.into(),
            path: path.into(),
        })
    }

    fn registry_root() -> ObjRef {
        ObjRef {
            bus: REGISTRY_BUS.into(),
            path: ROOT_PATH.into(),
        }
    }

    fn from_owned(r: &atspi_common::ObjectRefOwned) -> Option<ObjRef> {
        if r.is_null() || r.path_as_str() == NULL_PATH {
            return None;
        }
        Some(ObjRef {
            bus: r.name_as_str()?.to_string(),
            path: r.path_as_str().to_string(),
        })
    }
}

async fn accessible<'c>(
    conn: &'c zbus::Connection,
    obj: &ObjRef,
) -> zbus::Result<AccessibleProxy<'c>> {
    AccessibleProxy::builder(conn)
        .destination(obj.bus.clone())?
        .path(obj.path.clone())?
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
}

async fn component<'c>(
    conn: &'c zbus::Connection,
    obj: &ObjRef,
) -> zbus::Result<ComponentProxy<'c>> {
    ComponentProxy::builder(conn)
        .destination(obj.bus.clone())?
        .path(obj.path.clone())?
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
}

async fn text<'c>(conn: &'c zbus::Connection, obj: &ObjRef) -> zbus::Result<TextProxy<'c>> {
    TextProxy::builder(conn)
        .destination(obj.bus.clone())?
        .path(obj.path.clone())?
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
}

/// Runs the futures concurrently on this thread and returns their outputs in order.
pub(crate) async fn join_all<'a, T: 'a>(
    futures: impl IntoIterator<Item = impl std::future::Future<Output = T> + 'a>,
) -> Vec<T> {
    let ex = async_executor::LocalExecutor::new();
    let tasks: Vec<_> = futures.into_iter().map(|f| ex.spawn(f)).collect();
    ex.run(async {
        let mut out = Vec::with_capacity(tasks.len());
        for t in tasks {
            out.push(t.await);
        }
        out
    })
    .await
}

/// An application on the registry.
pub(crate) struct App {
    pub obj: ObjRef,
    pub name: String,
}

/// The registry's applications. One that vanishes while being read is left out.
pub(crate) async fn apps(conn: &zbus::Connection) -> zbus::Result<Vec<App>> {
    let root = accessible(conn, &ObjRef::registry_root()).await?;
    let children: Vec<ObjRef> = root
        .get_children()
        .await?
        .iter()
        .filter_map(ObjRef::from_owned)
        .collect();
    let names = join_all(
        children
            .iter()
            .map(|c| async move { accessible(conn, c).await?.name().await }),
    )
    .await;
    Ok(children
        .into_iter()
        .zip(names)
        .filter_map(|(obj, name)| {
            Some(App {
                obj,
                name: name.ok()?,
            })
        })
        .collect())
}

/// The role, states and name of one object.
pub(crate) struct Head {
    pub role: Role,
    pub states: StateSet,
    pub name: String,
}

pub(crate) async fn head(conn: &zbus::Connection, obj: &ObjRef) -> zbus::Result<Head> {
    let p = accessible(conn, obj).await?;
    let ((role, states), name) = try_zip(try_zip(p.get_role(), p.get_state()), p.name()).await?;
    Ok(Head { role, states, name })
}

/// The children of `obj`, null references dropped.
pub(crate) async fn children(conn: &zbus::Connection, obj: &ObjRef) -> zbus::Result<Vec<ObjRef>> {
    let p = accessible(conn, obj).await?;
    Ok(p.get_children()
        .await?
        .iter()
        .filter_map(ObjRef::from_owned)
        .collect())
}

/// A top-level window of an app.
pub(crate) struct Window {
    pub obj: ObjRef,
    pub title: String,
}

/// The app's top-level frames, windows and dialogs that are on screen or minimized. Windows an
/// app built and never showed (or hid) are left out: nothing can be seen or done in them.
pub(crate) async fn windows(conn: &zbus::Connection, app: &ObjRef) -> zbus::Result<Vec<Window>> {
    let kids = children(conn, app).await?;
    let heads = join_all(kids.iter().map(|k| head(conn, k))).await;
    Ok(kids
        .into_iter()
        .zip(heads)
        .filter_map(|(obj, h)| {
            let h = h.ok()?;
            let shown = h.states.contains(State::Showing) || h.states.contains(State::Iconified);
            (roles::is_window_role(h.role) && shown && !h.states.contains(State::Defunct))
                .then_some(Window { obj, title: h.name })
        })
        .collect())
}

/// The object's screen extents.
pub(crate) async fn extents(conn: &zbus::Connection, obj: &ObjRef) -> zbus::Result<[i32; 4]> {
    let (x, y, w, h) = component(conn, obj)
        .await?
        .get_extents(CoordType::Screen)
        .await?;
    Ok([x, y, w, h])
}

/// The process id of the app that owns `bus`, as the bus daemon knows it.
pub(crate) async fn pid(conn: &zbus::Connection, bus: &str) -> zbus::Result<u32> {
    let dbus = zbus::fdo::DBusProxy::new(conn).await?;
    let name = zbus::names::BusName::try_from(bus.to_string())?;
    Ok(dbus.get_connection_unix_process_id(name).await?)
}

/// One object fetched by the walk.
struct Node {
    facts: Facts,
    children: Vec<usize>,
}

/// Everything the walk reads about one object, in two rounds: first role, states and name;
/// then, only for objects on screen, children, extents, text and labelled-by.
///
/// Each call crosses the bus daemon twice and the app's main loop once, and the count of calls
/// is what a snapshot costs, so nothing is asked that the role already answers: the Text
/// interface is read only for text roles, the Component interface is tried on everything
/// (nearly every widget has it; a failure just leaves the bounds empty) instead of asking for
/// the interface list first, and labelled-by only for unnamed elements that are not layout.
async fn fetch(
    conn: &zbus::Connection,
    obj: &ObjRef,
    in_web: bool,
) -> zbus::Result<(Facts, Vec<ObjRef>)> {
    let p = accessible(conn, obj).await?;
    let ((role, states), name): ((Role, StateSet), String) =
        try_zip(try_zip(p.get_role(), p.get_state()), p.name()).await?;
    let mut facts = Facts {
        states,
        name,
        in_web_content: in_web,
        ..Facts::new(role)
    };
    if !states.contains(State::Showing) {
        return Ok((facts, Vec::new()));
    }
    let wants_text = roles::is_text_element(role, states);
    let kids = async {
        // An object that manages its descendants (a list or table) creates them on demand;
        // asking for all of a big one's would make the app build every row.
        if states.contains(State::ManagesDescendants)
            && p.child_count().await? > MAX_MANAGED_CHILDREN
        {
            return Ok(Vec::new());
        }
        Ok::<_, zbus::Error>(
            p.get_children()
                .await?
                .iter()
                .filter_map(ObjRef::from_owned)
                .collect::<Vec<_>>(),
        )
    };
    // A failing extents call leaves the bounds empty rather than dropping the element.
    let bounds = async { Ok::<_, zbus::Error>(extents(conn, obj).await.ok()) };
    let contents = async {
        if !wants_text {
            return Ok(None);
        }
        // A text role without the Text interface has no value.
        Ok::<_, zbus::Error>(text(conn, obj).await?.get_text(0, -1).await.ok())
    };
    let label = async {
        if !facts.name.is_empty() || roles::is_layout(role) {
            return Ok(None);
        }
        let relations = p.get_relation_set().await.unwrap_or_default();
        let target = relations
            .iter()
            .filter(|(kind, _)| *kind == RelationType::LabelledBy)
            .flat_map(|(_, targets)| targets.iter().filter_map(ObjRef::from_owned))
            .next();
        match target {
            Some(t) => Ok::<_, zbus::Error>(accessible(conn, &t).await?.name().await.ok()),
            None => Ok(None),
        }
    };
    let (((kids, bounds), contents), label) =
        try_zip(try_zip(try_zip(kids, bounds), contents), label).await?;
    facts.extents = bounds;
    facts.text = contents;
    facts.labelled_by = label.filter(|l| !l.is_empty());
    Ok((facts, kids))
}

/// The window's subtree, depth first, the window first, read level by level. Objects that are
/// not SHOWING (a hidden notebook page, a collapsed expander) are left out with their subtrees:
/// nothing in them can be seen or clicked, and walking them would double the walk in tabbed
/// windows. At most `max` objects are read; past that, the deepest levels and the last children
/// of the last level are not read.
pub(crate) async fn walk(
    conn: &zbus::Connection,
    window: &ObjRef,
    max: usize,
) -> zbus::Result<(Vec<Facts>, bool)> {
    let (root, root_kids) = fetch(conn, window, false).await?;
    let mut nodes = vec![Node {
        facts: root,
        children: Vec::new(),
    }];
    // (parent index, object, in web content) of the next level.
    let web = |f: &Facts| f.in_web_content || f.role == Role::DocumentWeb;
    let root_web = web(&nodes[0].facts);
    let mut frontier: Vec<(usize, ObjRef, bool)> =
        root_kids.into_iter().map(|k| (0, k, root_web)).collect();
    // Whether the cap left objects unread: the observation is then partial.
    let mut partial = false;
    while !frontier.is_empty() && nodes.len() < max {
        partial |= frontier.len() > max - nodes.len();
        frontier.truncate(max - nodes.len());
        let mut next = Vec::new();
        for chunk in frontier.chunks(BATCH) {
            let fetched = join_all(
                chunk
                    .iter()
                    .map(|(_, obj, in_web)| fetch(conn, obj, *in_web)),
            )
            .await;
            for ((parent, _, _), result) in chunk.iter().zip(fetched) {
                // An object that vanished between its parent's read and its own is left out.
                let Ok((facts, kids)) = result else { continue };
                if !facts.states.contains(State::Showing) {
                    continue;
                }
                let index = nodes.len();
                let kid_web = web(&facts);
                nodes[*parent].children.push(index);
                nodes.push(Node {
                    facts,
                    children: Vec::new(),
                });
                next.extend(kids.into_iter().map(|k| (index, k, kid_web)));
            }
        }
        frontier = next;
    }
    partial |= !frontier.is_empty();
    // Depth-first order from the level-order arena.
    let mut order = Vec::with_capacity(nodes.len());
    let mut stack = vec![0usize];
    while let Some(i) = stack.pop() {
        order.push(i);
        stack.extend(nodes[i].children.iter().rev());
    }
    let mut slots: Vec<Option<Facts>> = nodes.into_iter().map(|n| Some(n.facts)).collect();
    Ok((
        order.into_iter().filter_map(|i| slots[i].take()).collect(),
        partial,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip() {
        let obj = ObjRef {
            bus: ":1.23".into(),
            path: "/org/a11y/atspi/accessible/42".into(),
        };
        assert_eq!(obj.key(), ":1.23/org/a11y/atspi/accessible/42");
        assert_eq!(ObjRef::parse(&obj.key()), Some(obj));
        assert_eq!(ObjRef::parse("no-path"), None);
        assert_eq!(ObjRef::parse("/only/path"), None);
    }
}
