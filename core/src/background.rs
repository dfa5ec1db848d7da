//! What a background task of the service holds (the retention sweep, the events' relay, its
//! sinks' loops): the store, weakly, and a sign that the service lives, so that a task stops
//! with its service and never keeps a dropped service's store open.

use std::sync::{Arc, Weak};

use crate::store::Store;

/// The store, for as long as the service that started the task lives.
#[derive(Clone)]
pub(crate) struct StoreWhileServed {
    service: Weak<dyn Send + Sync>,
    store: Weak<dyn Store>,
}

impl StoreWhileServed {
    /// `store` while `service` (held weakly, only to know it lives) is not dropped.
    pub(crate) fn new(service: Weak<dyn Send + Sync>, store: &Arc<dyn Store>) -> Self {
        Self {
            service,
            store: Arc::downgrade(store),
        }
    }

    /// The store, or `None` once the service or the store is dropped: the task then ends.
    pub(crate) fn get(&self) -> Option<Arc<dyn Store>> {
        if self.service.strong_count() == 0 {
            return None;
        }
        self.store.upgrade()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::UnavailableStore;

    #[test]
    fn the_store_is_given_while_the_service_lives() {
        let store: Arc<dyn Store> = Arc::new(UnavailableStore);
        let service: Arc<dyn Send + Sync> = Arc::new(());
        let held = StoreWhileServed::new(Arc::downgrade(&service), &store);
        assert!(held.get().is_some());
        drop(service);
        assert!(held.get().is_none());
        assert_eq!(Arc::strong_count(&store), 1);
    }
}
