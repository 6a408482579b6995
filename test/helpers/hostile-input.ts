/**
 * Names Object.prototype answers to: a client's string looked up on a plain object finds these (or, for
 * `__proto__`, the prototype itself). `prototype` is not one of them but is refused as a property name too.
 */
export const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  'prototype',
];
