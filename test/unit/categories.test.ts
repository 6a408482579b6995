import { categoryTreeIssues, inheritedMetadata, MAX_CATEGORY_DEPTH } from '../../src/domain/categories';
import { AppError } from '../../src/domain/errors';
import { NewProjectConfigSchema, ProjectConfigSchema } from '../../src/domain/project-config';

/** A chain of `parents + 1` categories, `c0` (the category) up to `c<parents>` (the root), for inheritance. */
const chainOf = (parents: number) =>
  Array.from({ length: parents + 1 }, (_, index) => ({
    id: `c${index}`,
    metadata: { [`own${index}`]: index },
  }));

/** The same chain as a category list of a config: each `c<i>` has parent `c<i+1>`. */
const treeOf = (parents: number) =>
  Array.from({ length: parents + 1 }, (_, index) => ({
    id: `c${index}`,
    ...(index < parents ? { parentId: `c${index + 1}` } : {}),
  }));

describe('inheritedMetadata', () => {
  it('when a category has a parent and a grandparent, then it gets what it lacks from both, nearest first', () => {
    const merged = inheritedMetadata([
      { id: 'politics', metadata: { color: 'red' } },
      { id: 'news', metadata: { color: 'blue', icon: 'paper', section: 'news' } },
      { id: 'root', metadata: { icon: 'globe', footer: 'root footer', section: 'root' } },
    ]);
    expect(merged).toEqual({ color: 'red', icon: 'paper', section: 'news', footer: 'root footer' });
  });

  it('when a value is null or an object, then it still counts as set and is never overwritten or merged', () => {
    const merged = inheritedMetadata([
      { id: 'a', metadata: { teaser: null, seo: { title: 'A' } } },
      { id: 'b', metadata: { teaser: 'from b', seo: { title: 'B', description: 'B' } } },
    ]);
    expect(merged).toEqual({ teaser: null, seo: { title: 'A' } });
  });

  it('when a stored key is __proto__, then it stays a key and does not become the prototype', () => {
    const metadata = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    const merged = inheritedMetadata([{ id: 'a', metadata }]);
    expect(Object.keys(merged)).toEqual(['__proto__']);
    expect((merged as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
  });

  it(`when the chain has exactly ${MAX_CATEGORY_DEPTH} parents, then every one of them is inherited from`, () => {
    const merged = inheritedMetadata(chainOf(MAX_CATEGORY_DEPTH));
    expect(Object.keys(merged)).toHaveLength(MAX_CATEGORY_DEPTH + 1);
    expect(merged[`own${MAX_CATEGORY_DEPTH}`]).toBe(MAX_CATEGORY_DEPTH);
  });

  it(`when the chain has more than ${MAX_CATEGORY_DEPTH} parents, then the documented 500 with a message`, () => {
    let thrown: unknown;
    try {
      inheritedMetadata(chainOf(MAX_CATEGORY_DEPTH + 1));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).status).toBe(500);
    expect((thrown as AppError).details).toEqual({
      name: 'ConfigurationError',
      message: "Category 'c0' has more than 20 parents; metadata inheritance goes at most 20 levels deep",
    });
  });
});

describe('inheritedMetadata over a stored cycle', () => {
  it('when the parents form a cycle, then the documented 500 names the cycle, not "more than 20 parents"', () => {
    // A config stored before cycles were refused: the walk stops one parent past the limit, going round.
    const chain = Array.from({ length: MAX_CATEGORY_DEPTH + 2 }, (_, index) => ({
      id: ['a', 'b', 'c'][index % 3]!,
      metadata: {},
    }));
    let thrown: unknown;
    try {
      inheritedMetadata(chain);
    } catch (error) {
      thrown = error;
    }
    expect((thrown as AppError).status).toBe(500);
    expect((thrown as AppError).details).toEqual({
      name: 'ConfigurationError',
      message:
        "Category 'a' has parents that form a cycle: 'a' → 'b' → 'c' → 'a'; metadata inheritance goes at most 20 levels deep",
    });
    let self: unknown;
    try {
      inheritedMetadata(Array.from({ length: MAX_CATEGORY_DEPTH + 2 }, () => ({ id: 'x', metadata: {} })));
    } catch (error) {
      self = error;
    }
    expect((self as AppError).details).toMatchObject({
      message:
        "Category 'x' has parents that form a cycle: 'x' → 'x'; metadata inheritance goes at most 20 levels deep",
    });
  });
});

describe('categoryTreeIssues', () => {
  it('when the tree is a forest of short chains, then there is nothing to report', () => {
    expect(
      categoryTreeIssues([
        { id: 'news' },
        { id: 'politics', parentId: 'news' },
        { id: 'local', parentId: 'politics' },
        { id: 'sport' },
      ]),
    ).toEqual([]);
    expect(categoryTreeIssues(treeOf(MAX_CATEGORY_DEPTH))).toEqual([]);
  });

  it('when categories form a cycle, then each category of the cycle is reported at its parentId', () => {
    expect(
      categoryTreeIssues([
        { id: 'a', parentId: 'b' },
        { id: 'b', parentId: 'a' },
        { id: 'c', parentId: 'a' },
        { id: 'self', parentId: 'self' },
      ]),
    ).toEqual([
      { path: [0, 'parentId'], message: "makes a cycle: 'a' → 'b' → 'a'" },
      { path: [1, 'parentId'], message: "makes a cycle: 'b' → 'a' → 'b'" },
      { path: [3, 'parentId'], message: "makes a cycle: 'self' → 'self'" },
    ]);
  });

  it(`when a category would have more than ${MAX_CATEGORY_DEPTH} parents, then it is reported`, () => {
    const issues = categoryTreeIssues(treeOf(MAX_CATEGORY_DEPTH + 2));
    expect(issues).toEqual([
      {
        path: [0, 'parentId'],
        message: "gives 'c0' more than 20 parents; metadata inheritance goes at most 20 levels deep",
      },
      {
        path: [1, 'parentId'],
        message: "gives 'c1' more than 20 parents; metadata inheritance goes at most 20 levels deep",
      },
    ]);
  });

  it('when a parent is unknown, then the walk ends there (the config schema reports it)', () => {
    expect(categoryTreeIssues([{ id: 'a', parentId: 'missing' }])).toEqual([]);
  });
});

describe('NewProjectConfigSchema', () => {
  const config = (categories: unknown[]) => ({ settings: { handle: 'p' }, categories });

  it('when a config has a cycle, then it is refused at /categories/<index>/parentId, yet a stored one still reads', () => {
    const cyclic = config([
      { id: 'a', label: 'A', path: '/a', parentId: 'b' },
      { id: 'b', label: 'B', path: '/b', parentId: 'a' },
    ]);
    const result = NewProjectConfigSchema.safeParse(cyclic);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => [issue.path.join('/'), issue.message])).toEqual([
      ['categories/0/parentId', "makes a cycle: 'a' → 'b' → 'a'"],
      ['categories/1/parentId', "makes a cycle: 'b' → 'a' → 'b'"],
    ]);
    expect(ProjectConfigSchema.safeParse(cyclic).success).toBe(true);
  });

  it('when a parentId is empty, then it is refused as an unknown category, yet a stored one still reads', () => {
    // It was applied, and GET categories listed the category with `parent: ''`, an id no category has.
    const empty = config([
      { id: 'a', label: 'A', path: '/a' },
      { id: 'b', label: 'B', path: '/b', parentId: '' },
    ]);
    const result = NewProjectConfigSchema.safeParse(empty);
    expect(result.error?.issues.map((issue) => [issue.path.join('/'), issue.message])).toEqual([
      ['categories/1/parentId', "unknown category '': a category without a parent has no parentId"],
    ]);
    expect(ProjectConfigSchema.safeParse(empty).success).toBe(true);
  });

  it('when the categories form a valid tree, then the config is accepted', () => {
    expect(
      NewProjectConfigSchema.safeParse(
        config([
          { id: 'a', label: 'A', path: '/a' },
          { id: 'b', label: 'B', path: '/a/b', parentId: 'a' },
        ]),
      ).success,
    ).toBe(true);
  });
});
