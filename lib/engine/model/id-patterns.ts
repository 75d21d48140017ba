/**
 * The id grammars every layer shares: the messages check them on the wire (model/messages.ts),
 * the rules check them where a DAG or run is made (rules/validate.ts, rules/ids.ts).
 */
/** DAG and task ids: Airflow's `validate_key` (airflow/utils/helpers.py): word characters, `.` and `-`, at most 250. */
export const ID_PATTERN = /^[A-Za-z0-9_.-]{1,250}$/;
/** Airflow's default `allowed_run_id_pattern`, bounded by its 250-character run_id column. */
export const RUN_ID_PATTERN = /^[A-Za-z0-9_.~:+-]{1,250}$/;
