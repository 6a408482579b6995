-- Up Migration

-- A list's name is how operators and clients find it (`broadsheet list create`, GET document-lists?name=):
-- one list per name within a project. The demo's loader already replaced lists by name, so none repeat.
CREATE UNIQUE INDEX document_lists_project_name_idx ON document_lists (project_id, name);
-- The items of a list in order, for the resolved documents of GET document-lists[/{id}].
CREATE INDEX document_list_items_position_idx ON document_list_items (list_id, position);

-- Down Migration
DROP INDEX document_list_items_position_idx;
DROP INDEX document_lists_project_name_idx;
