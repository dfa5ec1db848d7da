//! Many rows in one statement: a batch of rows given column by column ([`Rows`]), which a
//! statement reads as a table of named columns (`... FROM <rows> AS u`), so that a match report
//! writes each kind of row with one statement whatever its number of players.
//!
//! PostgreSQL gets one array per column (`UNNEST`): the statement's text is the same whatever
//! the count, so it is prepared once and planned for a small list it can find by index. SQLite
//! gets a `VALUES` list, at most [`BulkRows::MAX_ROWS`] rows per statement. A list of ids to
//! read ([`BulkRows::push_one_of`]) is `= ANY(array)` on PostgreSQL: an index scan, where a
//! join to an array's rows is planned as a hash join over a sequential scan when the table's
//! statistics are off.

use sqlx::{Postgres, QueryBuilder, Sqlite};

/// The values of one column of a batch of rows.
enum Values<'a> {
    Int(Vec<i64>),
    MaybeInt(Vec<Option<i64>>),
    Text(Vec<&'a str>),
    MaybeText(Vec<Option<&'a str>>),
}

impl Values<'_> {
    fn len(&self) -> usize {
        match self {
            Values::Int(values) => values.len(),
            Values::MaybeInt(values) => values.len(),
            Values::Text(values) => values.len(),
            Values::MaybeText(values) => values.len(),
        }
    }

    /// The values of rows `range`.
    fn slice(&self, range: std::ops::Range<usize>) -> Self {
        match self {
            Values::Int(values) => Values::Int(values[range].to_vec()),
            Values::MaybeInt(values) => Values::MaybeInt(values[range].to_vec()),
            Values::Text(values) => Values::Text(values[range].to_vec()),
            Values::MaybeText(values) => Values::MaybeText(values[range].to_vec()),
        }
    }
}

/// A batch of rows, column by column: each column has a name (what the statement calls it) and
/// one value per row.
#[derive(Default)]
pub(crate) struct Rows<'a> {
    columns: Vec<(&'static str, Values<'a>)>,
}

impl<'a> Rows<'a> {
    /// No columns yet.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Adds a column of integers.
    pub(crate) fn int(mut self, name: &'static str, values: Vec<i64>) -> Self {
        self.columns.push((name, Values::Int(values)));
        self
    }

    /// Adds a column of integers or nulls.
    pub(crate) fn maybe_int(mut self, name: &'static str, values: Vec<Option<i64>>) -> Self {
        self.columns.push((name, Values::MaybeInt(values)));
        self
    }

    /// Adds a column of texts or nulls.
    pub(crate) fn maybe_text(mut self, name: &'static str, values: Vec<Option<&'a str>>) -> Self {
        self.columns.push((name, Values::MaybeText(values)));
        self
    }

    /// Adds a column of text.
    pub(crate) fn text(mut self, name: &'static str, values: Vec<&'a str>) -> Self {
        self.columns.push((name, Values::Text(values)));
        self
    }

    /// How many rows (those of the first column).
    pub(crate) fn len(&self) -> usize {
        self.columns.first().map_or(0, |(_, values)| values.len())
    }

    /// The rows in batches of at most `size`.
    pub(crate) fn batches(&self, size: usize) -> Vec<Rows<'a>> {
        let len = self.len();
        if len <= size {
            return vec![self.slice(0..len)];
        }
        (0..len)
            .step_by(size)
            .map(|start| self.slice(start..len.min(start + size)))
            .collect()
    }

    fn slice(&self, range: std::ops::Range<usize>) -> Rows<'a> {
        Rows {
            columns: self
                .columns
                .iter()
                .map(|(name, values)| (*name, values.slice(range.clone())))
                .collect(),
        }
    }
}

/// How a database takes a batch of rows into a statement.
pub(crate) trait BulkRows: sqlx::Database {
    /// The most rows one statement takes.
    const MAX_ROWS: usize;

    /// What a `SELECT` ends with to lock the account rows it reads until the transaction ends,
    /// in the order it reads them (nothing on SQLite, where a write transaction holds the whole
    /// database).
    const LOCK_READ: &'static str;

    /// Pushes `rows` as a parenthesized table with the columns' names (`rows` is not empty).
    fn push_rows(query: &mut QueryBuilder<Self>, rows: &Rows<'_>);

    /// Pushes the condition that the column before it is one of `ids` (not empty), in a form
    /// the database finds by index whatever it guesses of the count.
    fn push_one_of(query: &mut QueryBuilder<Self>, ids: &[i64]);
}

impl BulkRows for Postgres {
    const MAX_ROWS: usize = usize::MAX;
    const LOCK_READ: &'static str = " FOR NO KEY UPDATE";

    fn push_rows(query: &mut QueryBuilder<Self>, rows: &Rows<'_>) {
        query.push("(SELECT * FROM UNNEST(");
        for (at, (_, values)) in rows.columns.iter().enumerate() {
            if at > 0 {
                query.push(", ");
            }
            query.push("CAST(");
            match values {
                Values::Int(values) => query.push_bind(values.clone()).push(" AS BIGINT[])"),
                Values::MaybeInt(values) => query.push_bind(values.clone()).push(" AS BIGINT[])"),
                Values::Text(values) => query.push_bind(values.clone()).push(" AS TEXT[])"),
                Values::MaybeText(values) => query.push_bind(values.clone()).push(" AS TEXT[])"),
            };
        }
        query.push(") AS r(");
        let mut names = query.separated(", ");
        for (name, _) in &rows.columns {
            names.push(*name);
        }
        query.push("))");
    }

    fn push_one_of(query: &mut QueryBuilder<Self>, ids: &[i64]) {
        query
            .push(" = ANY(CAST(")
            .push_bind(ids.to_vec())
            .push(" AS BIGINT[]))");
    }
}

impl BulkRows for Sqlite {
    const MAX_ROWS: usize = 1_000;
    const LOCK_READ: &'static str = "";

    fn push_rows(query: &mut QueryBuilder<Self>, rows: &Rows<'_>) {
        query.push("(SELECT ");
        for (at, (name, _)) in rows.columns.iter().enumerate() {
            if at > 0 {
                query.push(", ");
            }
            query.push(format_args!("column{} AS {name}", at + 1));
        }
        query.push(" FROM (");
        query.push_values(0..rows.len(), |mut row, at| {
            for (_, values) in &rows.columns {
                match values {
                    Values::Int(values) => row.push_bind(values[at]),
                    Values::MaybeInt(values) => row.push_bind(values[at]),
                    Values::Text(values) => row.push_bind(values[at]),
                    Values::MaybeText(values) => row.push_bind(values[at]),
                };
            }
        });
        query.push("))");
    }

    fn push_one_of(query: &mut QueryBuilder<Self>, ids: &[i64]) {
        query.push(" IN (");
        let mut list = query.separated(", ");
        for id in ids {
            list.push_bind(*id);
        }
        query.push(")");
    }
}
