// libpq, PostgreSQL's C client: connections, parameterized queries, LISTEN/NOTIFY (TrellisStore's
// PostgresStore and PostgresChangeListener).
#include <libpq-fe.h>
