import express from 'express';
import { listRoutes, pathParamNames } from '../../src/http/route-table';

describe('listRoutes', () => {
  it('when routers are nested, then every route comes with its method and its full path template', () => {
    const app = express();
    const inner = express.Router({ mergeParams: true });
    inner.get('/documents/:documentId', (_req, res) => res.end());
    inner
      .route('/items')
      .get((_req, res) => res.end())
      .post((_req, res) => res.end());
    inner.use((_req, _res, next) => next());
    app.use('/api/:apiVersion', (_req, _res, next) => next(), inner);
    app.patch('/top', (_req, res) => res.end());
    expect(listRoutes(app.router)).toEqual([
      { method: 'GET', path: '/api/:apiVersion/documents/:documentId' },
      { method: 'GET', path: '/api/:apiVersion/items' },
      { method: 'POST', path: '/api/:apiVersion/items' },
      { method: 'PATCH', path: '/top' },
    ]);
  });
});

describe('pathParamNames', () => {
  it('when a template has named and wildcard parameters, then their names come in order', () => {
    expect(pathParamNames('/api/:apiVersion/documents/:documentId/renditions/:renditionHandles')).toEqual([
      'apiVersion',
      'documentId',
      'renditionHandles',
    ]);
    expect(pathParamNames('/files/*rest')).toEqual(['rest']);
    expect(pathParamNames('/health')).toEqual([]);
  });
});
