#include "rawio/history/sqlite_db.h"

#include <fmt/format.h>

#include <filesystem>

namespace diskcond::rawio::history {
namespace {

constexpr int kBusyTimeoutMs = 5000;

}  // namespace

Result<Database> Database::open(const std::string& path, Mode mode) {
  if (mode == Mode::kReadOnly) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      return make_error(
          fmt::format("no history database at {} (save runs with rawio --save)", path));
    }
  }
  int flags =
      mode == Mode::kCreate ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Database db(raw, path);  // owns the handle even when opening failed
  if (rc != SQLITE_OK) return make_error(db.error("cannot open history database"));
  sqlite3_busy_timeout(raw, kBusyTimeoutMs);
  if (Status s = db.exec("PRAGMA foreign_keys = ON"); !s) return make_error(s.error());
  return db;
}

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    db_ = other.db_;
    path_ = std::move(other.path_);
    other.db_ = nullptr;
  }
  return *this;
}

Database::~Database() {
  sqlite3_close_v2(db_);
}

std::string Database::error(std::string_view what) const {
  const char* message = db_ ? sqlite3_errmsg(db_) : "out of memory";
  return fmt::format("{} ({}): {}", what, path_, message);
}

Status Database::exec(std::string_view sql) {
  std::string text(sql);
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    return make_error(error("history database"));
  }
  return ok_status();
}

Result<Statement> Database::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) !=
      SQLITE_OK) {
    return make_error(error("history database"));
  }
  return Statement(stmt, this);
}

Statement& Statement::bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

Statement& Statement::bind(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
  return *this;
}

Statement& Statement::bind(int index, std::string_view text) {
  sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::bind_null(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

Result<bool> Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return make_error(db_->error("history database"));
}

Status Statement::run() {
  auto r = step();
  if (!r) return make_error(r.error());
  reset();
  return ok_status();
}

std::string Statement::text(int column) const {
  const unsigned char* p = sqlite3_column_text(stmt_, column);
  return p ? std::string(reinterpret_cast<const char*>(p)) : std::string();
}

}  // namespace diskcond::rawio::history
