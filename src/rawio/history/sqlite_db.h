// Thin RAII wrappers around sqlite3* and sqlite3_stmt*. Every failure comes back as a one-line
// Status/Result naming what was being done and SQLite's message; nothing throws.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace diskcond::rawio::history {

class Statement;

class Database {
 public:
  // kCreate: read-write, made if missing. kReadOnly: must exist; opened read-only, so reading a
  // history never changes it.
  enum class Mode { kCreate, kReadOnly };

  // Opens `path` with a busy timeout (other rawio processes may be writing) and foreign keys on.
  static Result<Database> open(const std::string& path, Mode mode);

  Database(Database&& other) noexcept : db_(other.db_), path_(std::move(other.path_)) {
    other.db_ = nullptr;
  }
  Database& operator=(Database&& other) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  // Runs one or more statements without results (schema, BEGIN/COMMIT).
  Status exec(std::string_view sql);
  // REQUIRES: `sql` is one statement.
  Result<Statement> prepare(std::string_view sql);
  int64_t last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
  // "<what> (<path>): <sqlite message>", the form of every error this layer returns.
  std::string error(std::string_view what) const;

 private:
  Database(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
};

// A prepared statement. Bind with 1-based indices, step, read columns with 0-based indices.
// REQUIRES: the Database it came from outlives it and is not moved while it lives.
class Statement {
 public:
  Statement(Statement&& other) noexcept : stmt_(other.stmt_), db_(other.db_) {
    other.stmt_ = nullptr;
  }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() { sqlite3_finalize(stmt_); }

  Statement& bind(int index, int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view text);
  Statement& bind_null(int index);
  // Unsigned 64-bit values are stored as their two's-complement int64 bit pattern.
  Statement& bind_u64(int index, uint64_t value) {
    return bind(index, static_cast<int64_t>(value));
  }

  // Returns true when a row is ready, false when done.
  Result<bool> step();
  // Steps a statement that returns no rows.
  Status run();
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  int64_t int64(int column) const { return sqlite3_column_int64(stmt_, column); }
  uint64_t u64(int column) const { return static_cast<uint64_t>(int64(column)); }
  double real(int column) const { return sqlite3_column_double(stmt_, column); }
  std::string text(int column) const;
  bool is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

 private:
  friend class Database;
  Statement(sqlite3_stmt* stmt, Database* db) : stmt_(stmt), db_(db) {}
  sqlite3_stmt* stmt_;
  Database* db_;
};

}  // namespace diskcond::rawio::history
