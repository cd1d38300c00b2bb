import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Built into dist/ and served by @fathom/http at /console/ (hashed files under assets/ are cached for a
// year). The agent canvas (React Flow) is a separate chunk, loaded only when an agent is opened.
export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // No inline <script>: the Content-Security-Policy allows scripts from the server's own origin only.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
  server: { proxy: { '/v1': 'http://127.0.0.1:8080' } },
});
