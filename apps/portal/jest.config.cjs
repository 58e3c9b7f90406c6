// @fastify/static requires content-disposition, which ships ES modules only: Jest compiles it like the sources.
module.exports = { ...require('../../jest.preset.cjs')(__dirname), transformIgnorePatterns: ['/node_modules/(?!content-disposition/)'] };
